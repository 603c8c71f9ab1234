"""The report's pages (tables as HTML, results.md on the front page) and its figures' axes."""

from __future__ import annotations

import pandas as pd
import pytest

from kernbench.errors import DataError
from kernbench.report.pages import display_frame, front_page_rst, table_page, write_table_page

TABLE = pd.DataFrame(
    {
        "dataset": ["semeval14_laptop", "reviews_hotel", "reviews_hotel"],
        "system": ["AGKsm", "PRP", "Triv"],
        "split": ["test", "test", "test"],
        "metric": ["accuracy", "mae_macro", "mae_macro"],
        "value": [60.4, 0.78713, 1.4],
        "ci_low": [56.5712, 0.7391, None],
        "ci_high": [64.3688, 0.8334, None],
        "paper_value": [63.15, None, None],
        "delta": [-2.75, None, None],
        "n_seeds": [1, 1, 1],
        "source": ["Kaljahi & Foster (2017), Table 3", None, None],
    }
)


def test_cells_carry_value_interval_paper_and_delta_in_the_units_of_their_metric():
    shown, numeric = display_frame(TABLE)
    assert list(shown.columns) == [
        "dataset", "system", "split", "metric", "value", "ci", "paper_value", "delta", "n_seeds"
    ]
    assert shown.iloc[0][["value", "ci", "paper_value", "delta", "n_seeds"]].tolist() == [
        "60.40", "[56.57, 64.37]", "63.15", "-2.75", "1"
    ]
    # MAE^M in stars: three decimals; no interval and no paper value stay blank
    assert shown.iloc[1][["value", "ci"]].tolist() == ["0.787", "[0.739, 0.833]"]
    assert shown.iloc[2][["value", "ci", "paper_value"]].tolist() == ["1.400", "", ""]
    assert {"value", "ci", "delta"} <= set(numeric) and "system" not in numeric


def test_page_is_an_html_table_with_named_headers_and_the_sources_below():
    page = table_page(TABLE, "Table 3 & more", notes=["Paper values: Kaljahi & Foster (2017), Table 3"])
    assert "<h1>Table 3 &amp; more</h1>" in page
    assert "<th>95 % CI</th><th>paper value</th><th>Δ</th>" in page
    assert '<td class="num">[56.57, 64.37]</td>' in page and "<td>AGKsm</td>" in page
    assert "<p class=\"note\">Paper values: Kaljahi &amp; Foster (2017), Table 3</p>" in page
    assert "<th>source</th>" not in page


def test_generic_columns_keep_counts_whole_and_p_values_fine():
    costs = pd.DataFrame({"rule": ["lstm", "total"], "jobs": [2, 3], "wall_s": [700.5, 720.25], "p": [0.0123, 0.5],
                          "xi": [0.01, 0.3], "p_tiny": [1.23456e-5, 0.5]})
    shown, _ = display_frame(costs)
    assert shown["jobs"].tolist() == ["2", "3"]
    assert shown["wall_s"].tolist() == ["700.50", "720.25"]
    assert shown["p"].tolist() == ["0.0123", "0.5000"]
    assert shown["xi"].tolist() == ["0.01", "0.30"]
    assert shown["p_tiny"].tolist() == ["0.0000", "0.5000"]


def test_an_empty_or_missing_table_is_named_and_nothing_is_written(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("dataset,value\n")
    out = tmp_path / "page.html"
    with pytest.raises(DataError, match="empty.csv: the table has no rows"):
        write_table_page(empty, out, "anygram")
    with pytest.raises(DataError, match="missing.csv: cannot read"):
        write_table_page(tmp_path / "missing.csv", out, "anygram")
    assert list(tmp_path.iterdir()) == [empty]


def test_front_page_holds_only_the_opening_of_results_md_and_the_results_page_holds_it_whole(tmp_path):
    from kernbench.report.pages import results_page, write_results_page
    from kernbench.report.results_summary import FRONT_END

    results = ("> **Smoke profile: not a reproduction.**\n\n- Table 3: 4 cells with a paper value\n\n"
               f"{FRONT_END}\n\n**Kaljahi & Foster, Table 3**\n\n| dataset | test |\n| --- | --- |\n| sst | 38.73 |\n")
    rst = front_page_rst("kernbench re-runs three papers.\n", results)
    assert "Smoke profile: not a reproduction." in rst and "4 cells with a paper value" in rst
    assert "38.73" not in rst and "front page ends" not in rst and "under **Results**" not in rst
    assert "<strong>Results</strong>" in rst
    page = results_page(results)
    assert "<td>38.73</td>" in page and "Smoke profile" in page and "front page ends" not in page
    (tmp_path / "results.md").write_text("")
    with pytest.raises(DataError, match="empty"):
        write_results_page(tmp_path / "results.md", tmp_path / "results.html")
    assert not (tmp_path / "results.html").exists()


def test_front_page_renders_results_md_as_snakemake_renders_the_report_text():
    from docutils.core import publish_parts
    from jinja2 import Environment

    results = (
        "**Kaljahi & Foster, Table 3** — accuracy (%)\n\n"
        "| dataset | system | test |\n| --- | --- | --- |\n| sst | AGKsm {{x}} | 38.73 [36.74, 40.63] |\n"
    )
    rst = front_page_rst("kernbench re-runs three papers.\n", results)
    # as snakemake.report.auto_report renders the global description
    rendered = Environment(trim_blocks=True, lstrip_blocks=True).from_string(rst).render(snakemake=None)
    body = publish_parts(rendered, writer="html")["html_body"]
    assert "kernbench re-runs three papers." in body
    assert "<strong>Kaljahi &amp; Foster, Table 3</strong>" in body
    assert "<td>38.73 [36.74, 40.63]</td>" in body
    assert "<td>AGKsm {{x}}</td>" in body  # Jinja left the cell alone


def _anygram_table():
    rows = []
    for dataset, systems in {"sst": {"AGKsm": 38.7, "BiLSTM": 42.0}, "semeval14_laptop": {"AGKsm": 60.4}}.items():
        for system, value in systems.items():
            rows.append({"dataset": dataset, "system": system, "split": "test", "metric": "accuracy", "value": value,
                         "ci_low": value - 2, "ci_high": value + 3, "paper_value": value + 1})
    return pd.DataFrame(rows)


def test_accuracy_panels_share_a_y_axis_from_zero_and_draw_every_interval():
    from kernbench.papers.anygram.figures import accuracy_figure

    fig = accuracy_figure(_anygram_table())
    left, right = fig.axes
    assert left.get_shared_y_axes().joined(left, right)
    assert left.get_ylim() == (0.0, 100.0) and right.get_ylim() == (0.0, 100.0)
    # one error bar per system: the sst panel's BiLSTM bar runs from 40 to 45
    bars = right.containers[1]  # bar container, then the errorbar container
    segments = bars.lines[2][0].get_segments()
    assert [s[:, 1].tolist() for s in segments] == [pytest.approx([36.7, 41.7]), pytest.approx([40.0, 45.0])]
    assert [t.get_text() for t in right.get_xticklabels()] == ["AGKsm", "BiLSTM"]


def test_fisher_axis_is_fitted_to_the_values_shared_by_the_panels_and_carries_the_intervals():
    from kernbench.papers.fisher.figures import fisher_figure

    rows = [
        {"dataset": c, "system": s, "split": "test", "metric": m, "value": 90.0 + i, "ci_low": 85.0 + i,
         "ci_high": 95.0, "paper_value": 97.0 if m == "average_precision" else None}
        for i, c in enumerate(["acq", "earn"]) for s in ["BoW-TFIDF", "FSA-ln"]
        for m in ["average_precision", "average_precision_ranking"]
    ]
    fig = fisher_figure(pd.DataFrame(rows))
    top, bottom = fig.axes
    # values 90-91, intervals 85-95, paper 97: one point of margin, the same for both panels
    assert top.get_ylim() == (84.0, 98.0) and bottom.get_ylim() == (84.0, 98.0)
    assert top.get_shared_y_axes().joined(top, bottom)
    assert [t.get_text() for t in top.get_xticklabels()] == ["earn", "acq"]  # the Reuters top-10 order
    segments = [s[:, 1].tolist() for c in top.containers for s in c.lines[2][0].get_segments()]
    assert segments == [[86.0, 95.0], [85.0, 95.0], [86.0, 95.0], [85.0, 95.0]]
    with pytest.raises(DataError, match="fisher.csv: no test average_precision"):
        fisher_figure(pd.DataFrame(rows).assign(split="dev"), source="fisher.csv")


def test_throughput_title_names_every_dataset_measured(tmp_path, monkeypatch):
    import matplotlib.image

    from kernbench.papers.anygram import figures

    frame = pd.DataFrame({
        "dataset": ["sst", "sst", "semeval14_laptop"], "kernel": ["AGKsm", "AGKsm", "NGTKsm"],
        "method": ["dp", "fast", "tree-dp"], "sentences": [8544, 8544, 2000], "pairs_per_s": [1e4, 1e6, 3e3],
        "pairs": [1000, 1000, 300], "seconds": [0.1, 0.001, 0.1], "repeat_seconds": ["0.1", "0.001;0.002;0.004", ""],
    })
    frame.to_csv(tmp_path / "b.csv", index=False)
    figs = []
    save = figures.save_png
    monkeypatch.setattr(figures, "save_png", lambda fig, out: figs.append(fig) or save(fig, out))
    figures.throughput(tmp_path / "b.csv", tmp_path / "t.png")
    ax = figs[0].axes[0]
    assert ax.get_title().startswith("Kernel throughput on sst (8,544 sentences), semeval14_laptop (2,000 sentences)")
    assert matplotlib.image.imread(tmp_path / "t.png").shape[2] == 4
    # one dot per timed run: 1 + 3 + 1 (a row without its repeats shows its best)
    dots = [tuple(xy) for c in ax.collections for xy in c.get_offsets()]
    assert sorted(dots) == sorted([(0, 1e4), (1, 1e6), (1, 5e5), (1, 2.5e5), (2, 3e3)])


def test_missing_metadata_warnings_become_one_note_and_other_warnings_pass():
    import logging

    from kernbench.report.missing_metadata import MissingMetadataNote

    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append((record.levelno, record.getMessage()))

    logger = logging.getLogger("kernbench.test.report_logging")
    logger.propagate = False
    logger.addHandler(Keep())
    logger.addFilter(MissingMetadataNote("results-x"))
    for name in ("a.csv", "b.csv", "c.png"):
        logger.warning("Missing metadata for file %s. Maybe metadata was deleted", name)
    logger.warning("File x marked for report but does not exist.")
    assert [level for level, _ in seen] == [logging.INFO, logging.WARNING]
    assert seen[0][1].startswith("Snakemake's job metadata for results-x is not in this checkout")
    assert seen[1][1] == "File x marked for report but does not exist."
