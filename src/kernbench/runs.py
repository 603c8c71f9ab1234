"""Subcommands of the ``kernbench`` command, one module per experiment family.

Each module defines ``register(subparsers)``, which adds its subcommands;
:mod:`kernbench.cli` discovers the modules here by name.
"""


def add_run_arguments(parser) -> None:
    """Add the arguments of every command that writes a run record.

    ``--seed``, ``--profile`` and ``--threads`` go into the record (the first two
    into its run key); ``--record`` and ``--predictions`` are its output paths.
    """
    parser.add_argument("--seed", type=int, required=True, help="seed of the experiment (goes into the run key)")
    parser.add_argument("--profile", required=True, help="config profile the run belongs to (goes into the run key)")
    parser.add_argument("--threads", type=int, default=1, help="threads the job may use (numba, BLAS)")
    parser.add_argument("--record", required=True, help="run record (JSON) to write")
    parser.add_argument("--predictions", required=True, help="per-item predictions (.parquet) to write")


def add_plumbing(subparsers, name: str, summary: str):
    """Add a subcommand that the workflow's rules call, left out of the command list of ``kernbench --help``.

    It stays callable, ``kernbench NAME --help`` shows ``summary`` and its
    options, and the epilog of ``kernbench --help`` names it with the others.

    Parameters
    ----------
    subparsers
        The action returned by ``ArgumentParser.add_subparsers``.
    name : str
        The subcommand.
    summary : str
        One line on what it does.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser, to add its arguments to.
    """
    parser = subparsers.add_parser(name, description=summary)
    parser.set_defaults(plumbing=True)
    return parser
