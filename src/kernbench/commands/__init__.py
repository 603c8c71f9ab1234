"""Subcommands of the ``kernbench`` command, one module per experiment family.

Each module defines ``register(subparsers)``, which adds its subcommands;
:mod:`kernbench.cli` discovers the modules here by name.
"""


def add_run_arguments(parser) -> None:
    """Add the arguments of every command that writes a run record.

    ``--seed``, ``--profile`` and ``--threads`` go into the record (the first two
    into its run key); ``--record`` and ``--predictions`` are its output paths.
    """
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--profile", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--record", required=True)
    parser.add_argument("--predictions", required=True)
