"""The job contract every experiment command follows: parse the shared arguments, run, :func:`write_run`.

A command that writes a run record takes :func:`add_run_arguments`, limits its
threads with :func:`set_threads`, and ends with :func:`write_run`, which writes
the per-item predictions and the record (each atomically, the record last, so a
record never points at missing predictions).
"""

from __future__ import annotations


def add_run_arguments(parser) -> None:
    """Add the arguments of every command that writes a run record.

    ``--seed``, ``--profile`` and ``--threads`` go into the record (the first two
    into its run key); ``--record`` and ``--predictions`` are its output paths.
    """
    parser.add_argument("--seed", type=int, required=True, help="seed of the experiment (goes into the run key)")
    parser.add_argument("--profile", required=True, help="config profile the run belongs to (goes into the run key)")
    add_input_arguments(parser, "--threads")
    parser.add_argument("--record", required=True, help="run record (JSON) to write")
    parser.add_argument("--predictions", required=True, help="per-item predictions (.parquet) to write")


#: Arguments that many commands share, with one spelling of their help.
INPUT_ARGUMENTS = {
    "--dataset": {"required": True, "help": "dataset name, as in config.yaml's datasets"},
    "--system": {"required": True, "help": "system name, as in the paper's table"},
    "--prepared": {"required": True, "help": "prepared dataset .parquet (kernbench prepare)"},
    "--embeddings": {"required": True, "help": "embeddings .npz (kernbench embeddings)"},
    "--threads": {"type": int, "default": 1, "help": "threads the job may use (numba, BLAS)"},
    "--cased-sm": {"action": "store_true", "help": "AGKsm: match tokens as written, not lower-cased"},
    "--records": {"nargs": "+", "required": True, "help": "run records (JSON) to read"},
}


def add_input_arguments(parser, *flags: str) -> None:
    """Add the shared arguments ``flags`` (keys of :data:`INPUT_ARGUMENTS`) to ``parser``."""
    for flag in flags:
        parser.add_argument(flag, **INPUT_ARGUMENTS[flag])


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


def set_threads(threads: int, *, blas: bool = True) -> None:
    """Make numba's parallel loops (and, with ``blas``, BLAS) use ``threads`` threads."""
    import numba

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    if blas:
        from threadpoolctl import threadpool_limits

        threadpool_limits(threads)


def write_run(args, *, predictions, **fields) -> dict:
    """Write a job's predictions to ``args.predictions`` and its run record to ``args.record``.

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments (:func:`add_run_arguments`): ``record``, ``predictions``, ``threads``.
    predictions : pandas.DataFrame
        Per-item predictions.
    **fields
        The record's other fields, as :func:`kernbench.records.make_record` takes them
        (``paper``, ``dataset``, ``system``, ``key_params``, ``params``, ``rows``, ``timings``,
        optionally ``curves`` and ``artifacts``).

    Returns
    -------
    dict
        The record written.
    """
    from kernbench.fileio import write_json_atomic, write_parquet_atomic
    from kernbench.records import make_record

    write_parquet_atomic(args.predictions, predictions)
    record = make_record(**fields, predictions=args.predictions, threads=args.threads)
    write_json_atomic(args.record, record)
    return record
