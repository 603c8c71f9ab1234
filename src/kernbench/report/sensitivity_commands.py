"""``kernbench sensitivity``: merge the per-choice sensitivity files into ``tables/sensitivity.*``."""

from __future__ import annotations

from kernbench.runs import add_plumbing


def _cmd_sensitivity(args) -> None:
    from kernbench.report.sensitivity import write_sensitivity

    write_sensitivity(args.parts, args.csv, args.md)


def register(subparsers) -> None:
    """Add the ``sensitivity`` subcommand."""
    p = add_plumbing(subparsers, "sensitivity", "merge sensitivity rows into tables/sensitivity.csv and .md")
    p.add_argument("--parts", nargs="*", default=[], help="CSV files written by the papers' sensitivity jobs")
    p.add_argument("--csv", required=True, help="output table (CSV)")
    p.add_argument("--md", required=True, help="output table (markdown)")
    p.set_defaults(func=_cmd_sensitivity)
