"""Subcommands of the generic layers: tables, MLflow, paired comparisons, sensitivity, figures, report pages,
the results summary, costs, and the comparison with a stored reference."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from kernbench.errors import DataError, KernbenchError
from kernbench.runs import add_input_arguments, add_plumbing

log = logging.getLogger("kernbench")

#: Number format of significance.csv.
FLOAT_FORMAT = "%.6g"


def _cmd_track(args) -> None:
    from kernbench.report.tracking import default_tracking_uri, log_records

    uri = args.tracking_uri or default_tracking_uri(args.results_dir)
    previous = [read_manifest(path) for path in args.previous]
    manifest = log_records(
        args.records, tracking_uri=uri, artifact_root=Path(args.results_dir) / "mlartifacts",
        table_paths=args.tables, figure_paths=args.figures, prepared_dir=Path(args.results_dir) / "prepared",
        subsets=json.loads(args.subsets), results_dir=Path(args.results_dir), cost_inputs=json.loads(args.cost_inputs),
        summaries=not args.no_summary,
    )
    _write_manifest(args.manifest, previous, manifest, uri)


def _write_manifest(path, previous, manifest, uri) -> None:
    import pandas as pd

    from kernbench.fileio import write_text_atomic

    frame = pd.DataFrame(manifest, columns=list(MANIFEST_COLUMNS))
    log.info("MLflow %s: %s", uri, frame["status"].value_counts().to_dict())
    frame = pd.concat([*previous, frame], ignore_index=True)
    write_text_atomic(path, frame.to_csv(sep="\t", index=False))


def _cmd_track_summaries(args) -> None:
    from kernbench.report.tracking import default_tracking_uri, log_summaries

    uri = args.tracking_uri or default_tracking_uri(args.results_dir)
    previous = [read_manifest(path) for path in args.previous]
    manifest = log_summaries(
        args.papers, tracking_uri=uri, artifact_root=Path(args.results_dir) / "mlartifacts",
        table_paths=args.tables, figure_paths=args.figures,
    )
    _write_manifest(args.manifest, previous, manifest, uri)


#: Columns of a tracking manifest (``kernbench track --manifest``).
MANIFEST_COLUMNS = ("run_key", "run_id", "run_name", "status")


def read_manifest(path):
    """A tracking manifest written by ``kernbench track``.

    Raises
    ------
    DataError
        If the file cannot be read or lacks one of `MANIFEST_COLUMNS`; the message names the file.
    """
    import pandas as pd

    try:
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: not a readable tracking manifest ({exc})") from exc
    missing = [c for c in MANIFEST_COLUMNS if c not in frame]
    if missing:
        raise DataError(f"{path}: tracking manifest lacks the column(s) {', '.join(missing)}")
    return frame[list(MANIFEST_COLUMNS)]


def _cmd_tables(args) -> None:
    from kernbench.report.tables import build_table, load_paper_values, write_table

    frame = build_table(args.records, load_paper_values(args.paper_values), resamples=args.resamples, seed=args.seed,
                        tolerance=args.tolerance)
    write_table(frame, args.csv, args.md, md_subset=json.loads(args.md_subset))
    log.info("table %s: %d rows", args.csv, len(frame))


def _register_tables(subparsers) -> None:
    """Add the ``track`` and ``tables`` subcommands."""
    p = add_plumbing(subparsers, "track", "log run records to MLflow (idempotent)")
    add_input_arguments(p, "--records")
    p.add_argument("--results-dir", required=True, help="the run's results_dir")
    p.add_argument("--tracking-uri", default="",
                   help="MLflow tracking URI (default: sqlite at <results_dir>/mlflow.db)")
    p.add_argument("--manifest", required=True, help="TSV of run key, MLflow run id and status to write")
    p.add_argument("--previous", nargs="*", default=[],
                   help="manifests of earlier track jobs of the run, whose rows the manifest starts with")
    p.add_argument("--tables", nargs="*", default=[], help="comparison tables: paper values, deltas, intervals")
    p.add_argument("--figures", nargs="*", default=[], help="figures for the per-paper summary runs")
    p.add_argument("--subsets", default="{}", help='JSON {table: {"xi": [levels]}}: levels that get a child run')
    p.add_argument("--cost-inputs", default="{}",
                   help='JSON {record: {part: [output directories]}}: cached jobs whose cost a run carries')
    p.add_argument("--no-summary", action="store_true",
                   help="log no per-paper summary run (track-summaries logs them once every table is built)")
    p.set_defaults(func=_cmd_track)

    p = add_plumbing(subparsers, "track-summaries", "log each paper's summary run (its tables and figures) to MLflow")
    p.add_argument("--papers", nargs="+", required=True, help="the papers whose summary runs are logged")
    p.add_argument("--results-dir", required=True, help="the run's results_dir")
    p.add_argument("--tracking-uri", default="",
                   help="MLflow tracking URI (default: sqlite at <results_dir>/mlflow.db)")
    p.add_argument("--tables", nargs="*", default=[],
                   help="tables: comparison, significance, sensitivity and the papers' own (claims)")
    p.add_argument("--figures", nargs="*", default=[], help="figures (figures/<paper>_*.png)")
    p.add_argument("--previous", nargs="*", default=[], help="manifests whose rows the manifest starts with")
    p.add_argument("--manifest", required=True, help="TSV of run key, MLflow run id and status to write")
    p.set_defaults(func=_cmd_track_summaries)

    p = add_plumbing(subparsers, "tables", "build a comparison table from run records")
    add_input_arguments(p, "--records")
    p.add_argument("--paper-values", required=True, help="workflow/paper_results.yaml: the papers' numbers")
    p.add_argument("--csv", required=True, help="table to write (CSV)")
    p.add_argument("--md", required=True, help="table to write (markdown)")
    p.add_argument("--md-subset", default="{}", help='JSON {column: [values]}: rows shown in the markdown version')
    p.add_argument("--resamples", type=int, default=0, help="bootstrap resamples per cell for ci_low/ci_high (0: none)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    p.add_argument("--tolerance", type=float, default=None,
                   help="points within which a cell reproduces its paper value (default: judged by its interval)")
    p.set_defaults(func=_cmd_tables)



def _write_csv(path, frame) -> None:
    from kernbench.fileio import write_text_atomic

    write_text_atomic(path, frame.to_csv(index=False, float_format=FLOAT_FORMAT, lineterminator="\n"))


def _cmd_significance(args) -> None:
    from kernbench.fileio import write_json_atomic
    from kernbench.report.significance import comparison_rows, comparisons_frame

    papers = [args.paper] if args.paper else None
    rows = comparison_rows(
        args.records, levels=json.loads(args.levels), resamples=args.resamples, seed=args.seed, papers=papers
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


def _register_significance(subparsers) -> None:
    """Add the ``significance`` and ``significance-merge`` subcommands."""
    p = add_plumbing(subparsers, "significance", "paired bootstrap / McNemar comparisons between systems")
    add_input_arguments(p, "--records")
    p.add_argument("--levels", required=True, help="JSON list of reduction levels compared (papers whose table has levels)")
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


def _cmd_sensitivity(args) -> None:
    from kernbench.report.sensitivity import write_sensitivity

    write_sensitivity(args.parts, args.csv, args.md)


def _register_sensitivity(subparsers) -> None:
    """Add the ``sensitivity`` subcommand."""
    p = add_plumbing(subparsers, "sensitivity", "merge sensitivity rows into tables/sensitivity.csv and .md")
    p.add_argument("--parts", nargs="*", default=[], help="CSV files written by the papers' sensitivity jobs")
    p.add_argument("--csv", required=True, help="output table (CSV)")
    p.add_argument("--md", required=True, help="output table (markdown)")
    p.set_defaults(func=_cmd_sensitivity)


def _cmd_figure(args) -> None:
    from kernbench.paper import resolve

    draw = resolve(_figure_kinds()[args.kind])
    draw(args.input, args.out, **({"dataset": args.dataset} if args.dataset else {}))


def _figure_kinds() -> dict:
    """``{kind: "module:function"}`` of every paper's report figures."""
    from kernbench.papers import PAPERS

    return {kind: ref for paper in PAPERS.values() for kind, ref in paper.figures.items()}


def _register_figure(subparsers) -> None:
    """Add the ``figure`` subcommand."""
    p = add_plumbing(subparsers, "figure", "draw a report figure from a table or benchmark CSV")
    p.add_argument("kind", choices=sorted(_figure_kinds()), help="which figure")
    p.add_argument(
        "--input", required=True,
        help="tables/anygram.csv, benchmarks/anygram.csv, tables/fisher.csv or tables/ordinal.csv",
    )
    p.add_argument("--dataset", help="the dataset drawn, for figures of one dataset (the ordinal curves)")
    p.add_argument("--out", required=True, help="PNG to write")
    p.set_defaults(func=_cmd_figure)


def _cmd_table(args) -> None:
    from kernbench.report.pages import write_table_page

    write_table_page(args.csv, args.out, args.name)


def _cmd_front(args) -> None:
    from kernbench.report.pages import write_front_page

    write_front_page(args.intro, args.results, args.out)


def _cmd_results_page(args) -> None:
    from kernbench.report.pages import write_results_page

    write_results_page(args.results, args.out)


def _register_pages(subparsers) -> None:
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

    p = add_plumbing(subparsers, "report-results", "results.md whole as an HTML page of the report")
    p.add_argument("--results", required=True, help="results.md written by the results_summary rule")
    p.add_argument("--out", required=True, help="HTML page to write")
    p.set_defaults(func=_cmd_results_page)


def _cmd_summary(args) -> None:
    from kernbench.fileio import write_text_atomic
    from kernbench.report.results_summary import results_markdown

    text = results_markdown(
        args.tables_dir, levels=json.loads(args.levels), profile=args.profile,
        gap_tolerance=json.loads(args.gap_tolerance), sensitivity=next((p for p in args.sensitivity if p), None),
    )
    write_text_atomic(args.out, text)


def _cmd_readme(args) -> None:
    from pathlib import Path

    from kernbench.report.results_summary import update_readme

    update_readme(args.readme, Path(args.results).read_text(encoding="utf-8"))


def _register_results(subparsers) -> None:
    """Add the ``results-summary`` and ``readme-results`` subcommands."""
    p = add_plumbing(subparsers, "results-summary", "markdown of the headline numbers of the tables")
    p.add_argument("--tables-dir", required=True, help="directory of the run's tables")
    p.add_argument("--levels", required=True, help="JSON list of reduction levels shown (papers whose table has levels)")
    p.add_argument("--profile", required=True, help="profile the tables come from (named in the text)")
    p.add_argument("--gap-tolerance", default="{}",
                   help='JSON {table: points}: test cells further from the paper are listed with the sensitivity rows')
    p.add_argument("--sensitivity", nargs="*", default=[],
                   help="the run's sensitivity.csv, listed under each gap (left out, or no path: not built)")
    p.add_argument("--out", required=True, help="markdown file to write")
    p.set_defaults(func=_cmd_summary)

    p = subparsers.add_parser("readme-results", help="put a results summary into README.md between its markers")
    p.add_argument("--results", required=True, help="results.md written by the results_summary rule")
    p.add_argument("--readme", default="README.md", help="README to update")
    p.set_defaults(func=_cmd_readme)


def _cmd_costs(args) -> None:
    from kernbench.fileio import write_text_atomic
    from kernbench.report.costs import core_use, cost_table, costs_markdown, critical_chain, read_benchmarks

    jobs = read_benchmarks(args.results_dir)
    table = cost_table(jobs)
    chain = critical_chain(jobs)
    if args.csv:
        write_text_atomic(args.csv, table.to_csv(index=False, float_format="%.2f"))
    if args.chain_csv:
        write_text_atomic(args.chain_csv, chain.to_csv(index=False, float_format="%.2f"))
    text = costs_markdown(table, chain, core_use(jobs))
    if args.md:
        write_text_atomic(args.md, text)
    else:
        print(text, end="")


def _register_costs(subparsers) -> None:
    """Add the ``costs`` subcommand."""
    p = subparsers.add_parser(
        "costs", help="jobs, wall and CPU time and peak memory per rule of a finished run, and its critical chain"
    )
    p.add_argument("results_dir", help="the run's results_dir (its benchmarks/jobs folder is read)")
    p.add_argument("--csv", help="write the table as CSV here")
    p.add_argument("--chain-csv", help="write the critical chain (the jobs that set the run's end) as CSV here")
    p.add_argument("--md", help="write the table and the critical chain as markdown here (default: print them)")
    p.set_defaults(func=_cmd_costs)


class TablesDiffer(KernbenchError):
    """Two results directories' tables differ beyond the tolerance."""


def _cmd_compare(args) -> None:
    from kernbench.report.compare import comparison_text, compare_results, profile_lines, summary_line

    profiles = profile_lines(args.results_a, args.results_b, allow_other_profile=args.allow_other_profile)
    diff = compare_results(args.results_a, args.results_b, tolerance=args.tolerance)
    sys.stdout.write(comparison_text(diff, args.results_a, args.results_b, args.tolerance, profiles))
    if not diff.identical:
        raise TablesDiffer(summary_line(diff, args.tolerance))


def _cmd_reference(args) -> None:
    from kernbench.report.reference import store_reference

    target = store_reference(args.results_dir, args.profile, root=args.root)
    print(f"reference {target} now holds the tables and results.md of {args.results_dir}")


def _register_reference(subparsers) -> None:
    """Add the ``compare`` and ``reference`` subcommands."""
    from kernbench.report.reference import DEFAULT_ROOT, PROFILES

    p = subparsers.add_parser(
        "compare", help="diff the tables of two results directories cell by cell (exit 1 if any moved)",
        description="Compare every tables/*.csv of two results directories. Rows are matched by their key "
        "columns (dataset, system, split, metric, xi, ...); every cell that differs by more than the tolerance "
        "is named with its file, row, column and both values, as are tables and rows found on one side only. "
        "The summary comes first. Exits 1 when anything differs, and refuses (exit 1) two results whose "
        "results.md name different profiles.",
    )
    p.add_argument("results_a", help="first results directory (e.g. results/reference/smoke)")
    p.add_argument("results_b", help="second results directory (e.g. your results_dir)")
    p.add_argument("--tolerance", type=float, default=0.0,
                   help="largest absolute difference still counted as equal, in each table's units (default 0)")
    p.add_argument("--allow-other-profile", action="store_true",
                   help="compare results of two different profiles (smoke and full) rather than refuse")
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


def register(subparsers) -> None:
    """Add the subcommands of the generic layers."""
    for add in (_register_tables, _register_significance, _register_sensitivity, _register_figure, _register_pages,
                _register_results, _register_costs, _register_reference):
        add(subparsers)
