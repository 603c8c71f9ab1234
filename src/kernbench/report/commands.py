"""``kernbench report-table | report-front``: the HTML pages the Snakemake report shows."""

from __future__ import annotations

from kernbench.runs import add_plumbing


def _cmd_table(args) -> None:
    from kernbench.report.pages import write_table_page

    write_table_page(args.csv, args.out, args.name)


def _cmd_front(args) -> None:
    from kernbench.report.pages import write_front_page

    write_front_page(args.intro, args.results, args.out)


def register(subparsers) -> None:
    """Add the ``report-table`` and ``report-front`` subcommands."""
    p = add_plumbing(subparsers, "report-table", "one table's CSV as an HTML page of the report")
    p.add_argument("--csv", required=True, help="the table's CSV (tables/<name>.csv or costs.csv)")
    p.add_argument("--name", required=True, help="the table's name (anygram, costs, ...), which picks its heading")
    p.add_argument("--out", required=True, help="HTML page to write")
    p.set_defaults(func=_cmd_table)

    p = add_plumbing(subparsers, "report-front", "the report's front page: an intro and results.md")
    p.add_argument("--intro", required=True, help="reStructuredText shown first (workflow/report/workflow.rst)")
    p.add_argument("--results", required=True, help="results.md written by the results_summary rule")
    p.add_argument("--out", required=True, help="reStructuredText page to write")
    p.set_defaults(func=_cmd_front)
