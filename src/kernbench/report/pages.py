"""Pages of the Snakemake report: each table as an HTML page, and ``results.md`` as the front page."""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from kernbench.errors import DataError
from kernbench.fileio import write_text_atomic
from kernbench.papers import PAPERS
from kernbench.report.uncertainty import PERCENT_METRICS

#: Heading of each table's page; a table not listed is headed by its name.
TITLES = {
    **{name: paper.caption for name, paper in PAPERS.items()},
    "baselines": "Baselines of every dataset",
    "significance": "Paired comparisons of systems on the same test items",
    "sensitivity": "Sensitivity to the choices the papers leave open",
    **{table: caption for paper in PAPERS.values() for table, caption in paper.extra_tables.items()},
    "costs": "Cost of the run per rule",
    "costs_chain": "Critical chain of the run: the jobs that set its end, first to last",
}

#: What each table that no paper owns holds, for its report page (reStructuredText).
DESCRIPTIONS = {
    "baselines": """Baselines of every dataset (trivial and BoW-TFIDF classifiers), the reference rows of all three papers.""",
    "significance": """Paired comparisons on the same test items: every pair of systems of Table 3 (accuracy, per dataset)
and of Table 1 (average precision, per category), and each new ordinal feature-selection method
against FFS and Triv at a few reduction levels (MAE^M). ``difference`` is system_a minus system_b
with its 95 % paired-bootstrap interval and two-sided p-value; ``p_mcnemar`` is the exact McNemar
test for accuracy between single runs. None of the papers reports significance.""",
    "sensitivity": """Sensitivity table: for every choice that a paper leaves open or ambiguous, each alternative tried, the table
cell it affects, its value, and the change from kernbench's default (Δ = alternative − default, with its 95 %
paired bootstrap interval over the test items and the two-sided bootstrap p-value). Values are in the units
of the tables: percent for accuracy and average precision, stars for MAE^M.""",
    "costs": """Cost of the run per rule, from the Snakemake benchmark file of every job: number of jobs, summed wall and CPU
seconds, the longest job and the peak resident memory (MB). Jobs run two at a time on two cores, so the run's
wall time is shorter than the summed wall time. Wall seconds are exact; CPU seconds are a lower bound, as
Snakemake samples a job's CPU time (every 0.5 s for its first 15 s, then every 30 s) and misses what the job used
after its last sample. Jobs that were already up to date when the run started keep the figures of the run that
made them.""",
    "costs_chain": """The critical chain of the run: from the job that ended last, each step back is the job that ended last at or
before this job's start (what it waited for: its input, or a free core), read from the end times of the jobs'
benchmark files. Seconds count from the first job's start; ``waited_s`` is the idle time before the job. A chain
through jobs of many rules with little waiting means the run is bound by its total work on the cores, not by
one sequence of jobs.""",
}

#: The columns of a table of reproduced cells (the papers' tables and the baselines).
CELL_COLUMNS = """Columns: ``value`` is the reproduced number, ``95 % CI`` its 95 % bootstrap interval over test items,
``paper value`` the published one and ``Δ`` their difference (percent, two decimals, for accuracy, F1 and
average precision; stars, three decimals, for MAE^M). The CSV (``tables/{{ table }}.csv``) has the
same rows with four decimals."""


def table_description(table: str, config: dict) -> str:
    """The text of ``table``'s report page: what it holds (its paper's :attr:`kernbench.paper.Paper.descriptions`,
    or :data:`DESCRIPTIONS`), and for a table of reproduced cells what its columns mean.

    Parameters
    ----------
    table : str
        The table's name (``tables/<table>.csv``, or ``costs``/``costs_chain``).
    config : dict
        The workflow config, which the papers' texts may quote (Jinja: ``{{ config[...] }}``).

    Returns
    -------
    str
        reStructuredText.
    """
    import jinja2

    owned = {name: text for paper in PAPERS.values() for name, text in paper.descriptions.items()}
    text = owned.get(table, DESCRIPTIONS.get(table, ""))
    if table in PAPERS or table == "baselines":
        text = f"{text}\n\n{CELL_COLUMNS}"
    return jinja2.Template(text, undefined=jinja2.StrictUndefined).render(config=config, table=table)


#: Columns in the unit of the row's ``metric`` (percent or stars), shown with that unit's decimals.
METRIC_COLUMNS = [
    "value", "paper_value", "delta", "std", "value_default", "value_a", "value_b", "difference", "ci_low", "ci_high",
]

#: Shown names of the columns; the interval pair becomes one "95 % CI" column.
HEADERS = {"paper_value": "paper value", "delta": "Δ", "ci": "95 % CI", "n_seeds": "seeds",
           "grid_edge": "chosen on its grid's edge"}

_STYLE = """
body { font-family: system-ui, sans-serif; font-size: 13px; margin: 12px; color: #111; }
h1 { font-size: 16px; }
table { border-collapse: collapse; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; }
th { background: #f1f1f1; position: sticky; top: 0; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:hover td { background: #f7f7ff; }
p.note { color: #444; max-width: 60em; }
"""


def _decimals(metric) -> int:
    """Two decimals for percent metrics (as the papers print them), three for the others (MAE^M, stars)."""
    return 2 if metric in PERCENT_METRICS else 3


def _number(value, decimals: int) -> str:
    if pd.isna(value):
        return ""
    if float(value).is_integer() and decimals == 0:
        return str(int(value))
    return f"{value:.{decimals}f}"


def _generic_decimals(column: pd.Series) -> int:
    """Decimals for a numeric column outside :data:`METRIC_COLUMNS`: the fewest (up to four) that show every value."""
    values = column.dropna().astype(float).to_numpy()
    for decimals in range(4):
        scaled = values * 10**decimals
        if (abs(scaled - scaled.round()) < 1e-6).all():
            return decimals
    return 4


def display_frame(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The table as strings to show, and the names of its numeric columns (right-aligned).

    Values in :data:`METRIC_COLUMNS` get the decimals of their row's metric; the
    interval ``ci_low``/``ci_high`` becomes one ``[low, high]`` column right after
    ``value`` (or ``difference``); the ``source`` column is left out (the page lists
    the sources below the table).

    Parameters
    ----------
    table : pandas.DataFrame
        A table as read from its CSV.

    Returns
    -------
    (pandas.DataFrame, list of str)
    """
    metrics = table["metric"] if "metric" in table else pd.Series([None] * len(table), index=table.index)
    digits = metrics.map(_decimals)
    shown = pd.DataFrame(index=table.index)
    numeric = []
    for column in table.columns:
        if column in ("source", "ci_high"):
            continue
        cells = table[column]
        if column == "ci_low" and "ci_high" in table:
            shown["ci"] = [
                "" if pd.isna(lo) else f"[{_number(lo, d)}, {_number(hi, d)}]"
                for lo, hi, d in zip(cells, table["ci_high"], digits)
            ]
            numeric.append("ci")
        elif column in METRIC_COLUMNS and pd.api.types.is_numeric_dtype(cells):
            shown[column] = [_number(v, d) for v, d in zip(cells, digits)]
            numeric.append(column)
        elif pd.api.types.is_numeric_dtype(cells) and not pd.api.types.is_bool_dtype(cells):
            decimals = _generic_decimals(cells)
            shown[column] = [_number(v, decimals) for v in cells]
            numeric.append(column)
        else:
            shown[column] = cells.astype(object).where(cells.notna(), "").astype(str)
    order = [c for c in shown.columns if c != "ci"]
    if "ci" in shown:
        anchor = next((c for c in ("value", "difference", "delta") if c in order), order[-1])
        order.insert(order.index(anchor) + 1, "ci")
    return shown[order], numeric


def table_page(table: pd.DataFrame, title: str, *, notes: list[str] = ()) -> str:
    """A self-contained HTML page holding ``table``.

    Parameters
    ----------
    table : pandas.DataFrame
        The table as read from its CSV.
    title : str
        The page's heading.
    notes : list of str
        Lines shown below the table (plain text, escaped here).

    Returns
    -------
    str
        The page.
    """
    shown, numeric = display_frame(table)
    head = "".join(f"<th>{html.escape(HEADERS.get(c, c))}</th>" for c in shown.columns)
    body = "\n".join(
        "<tr>" + "".join(
            f'<td class="num">{html.escape(v)}</td>' if c in numeric else f"<td>{html.escape(v)}</td>"
            for c, v in zip(shown.columns, row)
        ) + "</tr>"
        for row in shown.itertuples(index=False)
    )
    footer = "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head>\n<body><h1>{html.escape(title)}</h1>\n"
        f"<table><thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table>\n{footer}</body></html>\n"
    )


def write_table_page(csv_path, out, name: str) -> None:
    """Write the HTML page of the table ``name`` read from ``csv_path`` (atomically).

    Parameters
    ----------
    csv_path : path-like
        The table's CSV.
    out : path-like
        HTML file to write.
    name : str
        The table's name (``anygram``, ``costs``, ...): picks the heading from :data:`TITLES`.

    Raises
    ------
    DataError
        If the CSV cannot be read or has no rows.
    """
    try:
        table = pd.read_csv(csv_path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DataError(f"{csv_path}: cannot read the table ({exc})") from exc
    if table.empty:
        raise DataError(f"{csv_path}: the table has no rows")
    notes = [f"{len(table)} rows, from {Path(csv_path).name}."]
    if "source" in table:
        notes += [f"Paper values: {s}" for s in sorted(set(table["source"].dropna()))]
    write_text_atomic(out, table_page(table, TITLES.get(name, name), notes=notes))


def markdown_html(text: str) -> str:
    """Markdown with pipe tables (as ``results.md`` is written) rendered to HTML."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


#: The front page's pointer to the rest of the report.
FRONT_POINTER = ("The tables beside the papers' and the gaps, with what the sensitivity table measured on each: "
                 "**Results**; every table: **Tables**; the figures: each paper's category.")


def front_part(results_md: str) -> str:
    """The opening part of ``results.md``, up to :data:`kernbench.report.results_summary.FRONT_END` (left out)."""
    from kernbench.report.results_summary import FRONT_END

    return results_md.split(FRONT_END, 1)[0]


def front_page_rst(intro_rst: str, results_md: str) -> str:
    """The report's front page: the intro (reStructuredText), then the opening part of ``results.md`` as raw HTML.

    The front page stays short, so that Snakemake's report, which centres it, shows it whole; the rest of
    ``results.md`` has its own page (:func:`results_page`). Snakemake renders the front page through Jinja
    before docutils, so the HTML is fenced off with ``{% raw %}`` (a table cell could contain ``{{``).

    Parameters
    ----------
    intro_rst : str
        reStructuredText shown first.
    results_md : str
        The content of ``results.md``.

    Returns
    -------
    str
        reStructuredText.
    """
    body = markdown_html(front_part(results_md).rstrip() + "\n\n" + FRONT_POINTER + "\n")
    indented = "\n".join(f"   {line}" if line else "" for line in body.splitlines())
    return f"{intro_rst.rstrip()}\n\n{{% raw %}}\n.. raw:: html\n\n{indented}\n\n{{% endraw %}}\n"


def results_page(results_md: str) -> str:
    """``results.md`` whole as a self-contained HTML page of the report (the marker of its front part left out)."""
    from kernbench.report.results_summary import FRONT_END

    body = markdown_html(results_md.replace(FRONT_END, ""))
    title = "Results: the tables beside the papers and the gaps"
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head>\n<body><h1>{html.escape(title)}</h1>\n{body}</body></html>\n"
    )


def _read_results(results_md_path, page: str) -> str:
    results = Path(results_md_path).read_text(encoding="utf-8")
    if not results.strip():
        raise DataError(f"{results_md_path}: empty, nothing to put on the report's {page}")
    return results


def write_results_page(results_md_path, out) -> None:
    """Write :func:`results_page` of ``results.md`` atomically.

    Raises
    ------
    DataError
        If ``results.md`` is empty.
    """
    write_text_atomic(out, results_page(_read_results(results_md_path, "results page")))


def write_front_page(intro_path, results_md_path, out) -> None:
    """Write the report's front page (see :func:`front_page_rst`) atomically.

    Raises
    ------
    DataError
        If ``results.md`` is empty.
    """
    results = _read_results(results_md_path, "front page")
    write_text_atomic(out, front_page_rst(Path(intro_path).read_text(encoding="utf-8"), results))
