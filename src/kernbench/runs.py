"""The job contract every experiment command follows: parse the shared arguments, run, :func:`write_run`.

A command that writes a run record takes :func:`add_run_arguments`, limits its
threads with :func:`set_threads`, chooses its hyper-parameters with :func:`select_on_dev`,
scores dev and test with :func:`evaluate_splits`, and ends with :func:`write_run`, which writes
the per-item predictions and the record (each atomically, the record last, so a
record never points at missing predictions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def add_run_arguments(parser, *, several_seeds: bool = False) -> None:
    """Add the arguments of every command that writes a run record.

    ``--seed``, ``--profile`` and ``--threads`` go into the record (the first two
    into its run key); ``--record`` and ``--predictions`` are its output paths. With
    ``several_seeds``, ``--seed`` takes one or more seeds, a run (and record) each.
    """
    if several_seeds:
        parser.add_argument("--seed", type=int, required=True, nargs="+",
                            help="seeds, one run each (go into the run keys); with several, the output paths hold {seed}")
    else:
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
    "--cased-sm": {"action": "store_true", "help": "string match: match tokens as written, not lower-cased"},
    "--records": {"nargs": "+", "required": True, "help": "run records (JSON) to read"},
}


def add_input_arguments(parser, *flags: str) -> None:
    """Add the shared arguments ``flags`` (keys of :data:`INPUT_ARGUMENTS`) to ``parser``."""
    for flag in flags:
        parser.add_argument(flag, **INPUT_ARGUMENTS[flag])


def paths_per_run(args, names, field: str, values, *, command: str) -> dict:
    """The output paths of each run of a command that writes several runs: ``{value: {name: path}}``.

    Each option in ``names`` holds a path template; the run of ``value`` writes to it with ``{field}``
    filled in (``--record runs/.../{category}.json``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    names : iterable of str
        Attributes of ``args`` holding the templates (``"record"``, ``"predictions"``).
    field : str
        The placeholder the runs differ in (``"category"``, ``"seed"``).
    values : sequence
        One value of ``field`` per run.
    command : str
        The command, for the message.

    Raises
    ------
    kernbench.errors.DataError
        If there are several runs and a template lacks ``{field}``: the runs would overwrite each other.
    """
    from kernbench.errors import DataError

    names = tuple(names)
    if len(values) > 1:
        for name in names:
            if f"{{{field}}}" not in getattr(args, name):
                raise DataError(
                    f"{command} --{name.replace('_', '-')} {getattr(args, name)!r} must contain {{{field}}} when several "
                    f"{field} values are given ({', '.join(map(str, values))})"
                )
    # replace, not format: a template may hold the placeholders of other fields, filled later ({system} then {seed})
    return {value: {name: getattr(args, name).replace(f"{{{field}}}", str(value)) for name in names} for value in values}


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


def select_on_dev(scored, *, higher_is_better: bool = True) -> tuple:
    """The best of candidates scored on held-out data, the first in order on ties.

    Parameters
    ----------
    scored : iterable of (key, score, payload)
        Candidates in order with their held-out score (dev, or a cross-validation mean).
        Consumed lazily, so a generator that builds each candidate when it is reached
        holds only the current and the best payloads at once.
    higher_is_better : bool, optional
        True for accuracy and the like, False for errors such as MAE^M.

    Returns
    -------
    key, payload
        Of the best candidate.
    scores : dict
        ``{key: score}`` of every candidate, in order.

    Raises
    ------
    ValueError
        If there is no candidate.
    """
    best, scores = None, {}
    for key, score, payload in scored:
        scores[key] = score
        if best is None or (score > best[1] if higher_is_better else score < best[1]):
            best = (key, score, payload)
    if best is None:
        raise ValueError("no candidate to select from")
    return best[0], best[2], scores


def grid_choice(value, grid) -> dict:
    """A value chosen from a grid, as a run record's ``grid_choices`` entry holds it.

    Parameters
    ----------
    value : float
        The chosen value.
    grid : sequence of float
        Every candidate.

    Returns
    -------
    dict
        ``{"value": value, "grid": sorted candidates}``.
    """
    return {"value": float(value), "grid": sorted(float(g) for g in grid)}


def grid_edge(choice: dict) -> str | None:
    """Which edge of its grid a :func:`grid_choice` lies on: ``"top"``, ``"bottom"`` or None.

    A grid of one value has no edge to flag (nothing was chosen).
    """
    grid = choice["grid"]
    if len(grid) < 2:
        return None
    if choice["value"] == max(grid):
        return "top"
    if choice["value"] == min(grid):
        return "bottom"
    return None


def table_rows(dataset: str, split: str, scores: dict) -> list[dict]:
    """Table rows ``{"dataset", "split", "metric", "value"}`` of one split's ``{metric: value}``."""
    return [{"dataset": dataset, "split": split, "metric": m, "value": v} for m, v in scores.items()]


def evaluate_splits(parts: dict, predict, *, dataset: str, score) -> tuple[list[dict], pd.DataFrame]:
    """Score a fitted model on the dev and test splits: table rows and per-item predictions.

    Parameters
    ----------
    parts : dict
        ``{split: pandas.DataFrame}`` with ``id`` and ``label`` columns; ``dev`` and ``test``
        are scored, in that order, where present and non-empty.
    predict : callable
        ``predict(split, part)`` -> predicted labels of the items of ``part``, in order.
    dataset : str
        Name written in the rows.
    score : callable
        ``score(y_true, y_pred)`` -> ``{metric: value}``, e.g.
        :func:`kernbench.metrics.classification_scores`.

    Returns
    -------
    rows : list of dict
        ``{"dataset", "split", "metric", "value"}``.
    predictions : pandas.DataFrame
        ``id, split, y_true, y_pred`` (empty if no split was scored).
    """
    import pandas

    rows, predictions = [], []
    for split in ("dev", "test"):
        part = parts.get(split)
        if part is None or part.empty:
            continue
        y_true = part["label"].to_numpy()
        y_pred = predict(split, part)
        rows += table_rows(dataset, split, score(y_true, y_pred))
        predictions.append(
            pandas.DataFrame({"id": part["id"].to_numpy(), "split": split, "y_true": y_true, "y_pred": y_pred})
        )
    return rows, (pandas.concat(predictions, ignore_index=True) if predictions else pandas.DataFrame())


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
        optionally ``table``, ``curves`` and ``artifacts``).

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
