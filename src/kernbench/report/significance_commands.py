"""``kernbench significance`` / ``significance-merge``: paired comparisons between systems, from run records."""

from __future__ import annotations

import json
import logging

from kernbench.runs import add_plumbing

log = logging.getLogger("kernbench")

FLOAT_FORMAT = "%.6g"


def _write_csv(path, frame) -> None:
    from kernbench.fileio import write_text_atomic

    write_text_atomic(path, frame.to_csv(index=False, float_format=FLOAT_FORMAT, lineterminator="\n"))


def _cmd_significance(args) -> None:
    from kernbench.fileio import write_json_atomic
    from kernbench.report.significance import comparison_rows, comparisons_frame

    papers = [args.paper] if args.paper else None
    rows = comparison_rows(
        args.records, ordinal_xi=json.loads(args.ordinal_xi), resamples=args.resamples, seed=args.seed, papers=papers
    )
    if args.paper:
        write_json_atomic(args.out, {"paper": args.paper, "rows": rows})
    else:
        _write_csv(args.out, comparisons_frame(rows))
    log.info("%s: %d comparisons", args.out, len(rows))


def _cmd_merge(args) -> None:
    from kernbench.errors import DataError
    from kernbench.report.significance import comparisons_frame

    parts = []
    for path in args.parts:
        try:
            with open(path, encoding="utf-8") as f:
                part = json.load(f)
            parts.append((part["paper"], part["rows"]))
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise DataError(f"{path}: not a significance part written by `kernbench significance --paper` ({err})") from err
    papers = [paper for paper, _ in parts]
    if len(set(papers)) != len(papers):
        raise DataError(f"significance parts repeat a paper: {papers}")
    rows = [row for _, part_rows in sorted(parts, key=lambda p: p[0]) for row in part_rows]
    _write_csv(args.out, comparisons_frame(rows))
    log.info("%s: %d comparisons from %d papers", args.out, len(rows), len(parts))


def register(subparsers) -> None:
    """Add the ``significance`` and ``significance-merge`` subcommands."""
    p = add_plumbing(subparsers, "significance", "paired bootstrap / McNemar comparisons between systems")
    p.add_argument("--records", nargs="+", required=True, help="run records (JSON) to read")
    p.add_argument("--ordinal-xi", required=True, help="JSON list of reduction levels compared")
    p.add_argument("--resamples", type=int, required=True, help="bootstrap resamples per comparison")
    p.add_argument("--seed", type=int, required=True, help="seed of the paired bootstrap")
    p.add_argument(
        "--paper", help="compare this paper's systems only and write its rows as JSON for significance-merge"
    )
    p.add_argument("--out", required=True, help="CSV of every comparison, or with --paper the JSON part")
    p.set_defaults(func=_cmd_significance)

    p = add_plumbing(
        subparsers, "significance-merge", "join the per-paper parts of `significance --paper` into significance.csv"
    )
    p.add_argument("--parts", nargs="+", required=True, help="JSON parts, one per paper (any order)")
    p.add_argument("--out", required=True, help="significance.csv to write")
    p.set_defaults(func=_cmd_merge)
