"""``kernbench compare`` and ``kernbench reference``: check a run against another or the stored reference."""

from __future__ import annotations

import sys

from kernbench.errors import KernbenchError


class TablesDiffer(KernbenchError):
    """Two results directories' tables differ beyond the tolerance."""


def _cmd_compare(args) -> None:
    from kernbench.report.compare import compare_results, differences_text, summary_line

    diff = compare_results(args.results_a, args.results_b, tolerance=args.tolerance)
    sys.stdout.write(differences_text(diff, args.results_a, args.results_b))
    if not diff.identical:
        raise TablesDiffer(summary_line(diff, args.tolerance))
    print(summary_line(diff, args.tolerance))


def _cmd_reference(args) -> None:
    from kernbench.report.reference import store_reference

    target = store_reference(args.results_dir, args.profile, root=args.root)
    print(f"reference {target} now holds the tables and results.md of {args.results_dir}")


def register(subparsers) -> None:
    """Add the ``compare`` and ``reference`` subcommands."""
    from kernbench.report.reference import DEFAULT_ROOT, PROFILES

    p = subparsers.add_parser(
        "compare", help="diff the tables of two results directories cell by cell (exit 1 if any moved)",
        description="Compare every tables/*.csv of two results directories. Rows are matched by their key "
        "columns (dataset, system, split, metric, xi, ...); every cell that differs by more than the tolerance "
        "is named with its file, row, column and both values, as are tables and rows found on one side only. "
        "Exits 1 when anything differs.",
    )
    p.add_argument("results_a", help="first results directory (e.g. results/reference/smoke)")
    p.add_argument("results_b", help="second results directory (e.g. your results_dir)")
    p.add_argument("--tolerance", type=float, default=0.0,
                   help="largest absolute difference still counted as equal, in each table's units (default 0)")
    p.set_defaults(func=_cmd_compare)

    p = subparsers.add_parser(
        "reference", help="store a finished run's tables and results.md as the reference of its profile",
        description="Replace results/reference/<profile>/ with the tables/*.csv, tables/*.md and results.md of a "
        "finished run of that profile. Use it when a change moves the numbers on purpose; commit the result.",
    )
    p.add_argument("results_dir", help="the finished run's results_dir")
    p.add_argument("--profile", required=True, choices=PROFILES, help="the profile the run used")
    p.add_argument("--root", default=str(DEFAULT_ROOT),
                   help=f"folder holding one reference per profile (default {DEFAULT_ROOT})")
    p.set_defaults(func=_cmd_reference)
