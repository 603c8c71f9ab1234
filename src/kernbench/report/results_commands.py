"""``kernbench results-summary`` and ``kernbench readme-results``: the README's Results section."""

from __future__ import annotations

import json

from kernbench.runs import add_plumbing


def _cmd_summary(args) -> None:
    from kernbench.fileio import write_text_atomic
    from kernbench.report.results_summary import results_markdown

    text = results_markdown(
        args.tables_dir, ordinal_levels=json.loads(args.ordinal_xi), profile=args.profile,
        gap_tolerance=json.loads(args.gap_tolerance),
    )
    write_text_atomic(args.out, text)


def _cmd_readme(args) -> None:
    from pathlib import Path

    from kernbench.report.results_summary import update_readme

    update_readme(args.readme, Path(args.results).read_text(encoding="utf-8"))


def register(subparsers) -> None:
    """Add the ``results-summary`` and ``readme-results`` subcommands."""
    p = add_plumbing(subparsers, "results-summary", "markdown of the headline numbers of the tables")
    p.add_argument("--tables-dir", required=True, help="directory of the run's tables")
    p.add_argument("--ordinal-xi", required=True, help="JSON list of reduction levels shown")
    p.add_argument("--profile", required=True, help="profile the tables come from (named in the text)")
    p.add_argument("--gap-tolerance", default="{}",
                   help='JSON {table: points}: test cells further from the paper are listed with the sensitivity rows')
    p.add_argument("--out", required=True, help="markdown file to write")
    p.set_defaults(func=_cmd_summary)

    p = subparsers.add_parser("readme-results", help="put a results summary into README.md between its markers")
    p.add_argument("--results", required=True, help="results.md written by the results_summary rule")
    p.add_argument("--readme", default="README.md", help="README to update")
    p.set_defaults(func=_cmd_readme)
    register_costs(subparsers)


def _cmd_costs(args) -> None:
    from kernbench.report.costs import cost_table, costs_markdown
    from kernbench.fileio import write_text_atomic

    table = cost_table(args.results_dir)
    if args.csv:
        write_text_atomic(args.csv, table.to_csv(index=False, float_format="%.2f"))
    text = costs_markdown(table)
    if args.md:
        write_text_atomic(args.md, text)
    else:
        print(text, end="")


def register_costs(subparsers) -> None:
    """Add the ``costs`` subcommand."""
    p = subparsers.add_parser("costs", help="jobs, wall and CPU time and peak memory per rule of a finished run")
    p.add_argument("results_dir", help="the run's results_dir (its benchmarks/jobs folder is read)")
    p.add_argument("--csv", help="write the table as CSV here")
    p.add_argument("--md", help="write the table as markdown here (default: print it)")
    p.set_defaults(func=_cmd_costs)
