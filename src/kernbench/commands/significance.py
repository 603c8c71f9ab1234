"""``kernbench significance``: paired comparisons between systems, from run records."""

from __future__ import annotations

import json
import logging

from kernbench.commands import add_plumbing

log = logging.getLogger("kernbench")


def _cmd_significance(args) -> None:
    from kernbench.fileio import write_text_atomic
    from kernbench.significance import compare_systems

    frame = compare_systems(
        args.records, ordinal_xi=json.loads(args.ordinal_xi), resamples=args.resamples, seed=args.seed
    )
    write_text_atomic(args.out, frame.to_csv(index=False, float_format="%.6g", lineterminator="\n"))
    log.info("%s: %d comparisons", args.out, len(frame))


def register(subparsers) -> None:
    """Add the ``significance`` subcommand."""
    p = add_plumbing(subparsers, "significance", "paired bootstrap / McNemar comparisons between systems")
    p.add_argument("--records", nargs="+", required=True, help="run records (JSON) to read")
    p.add_argument("--ordinal-xi", required=True, help="JSON list of reduction levels compared")
    p.add_argument("--resamples", type=int, required=True, help="bootstrap resamples per comparison")
    p.add_argument("--seed", type=int, required=True, help="seed of the paired bootstrap")
    p.add_argument("--out", required=True, help="CSV of the comparisons to write")
    p.set_defaults(func=_cmd_significance)
