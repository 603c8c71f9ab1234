"""The cost table sums the jobs' Snakemake benchmark files per rule."""

from __future__ import annotations

import pytest

from kernbench.errors import DataError
from kernbench.report.costs import cost_table, costs_markdown, read_benchmarks

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(root, relative, wall, cpu, rss):
    path = root / "benchmarks" / "jobs" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{wall}\t0:00:00\t{rss}\t1\t1\t1\t0\t0\t50\t{cpu}\n")


def test_jobs_are_summed_per_rule_with_a_total(tmp_path):
    _bench(tmp_path, "lstm/runs/anygram/sst/lstm/BiLSTM_seed1.tsv", 400.5, 390.0, 1200.0)
    _bench(tmp_path, "lstm/runs/anygram/sst/lstm/BiLSTM_seed2.tsv", 300.0, 280.0, 1300.0)
    _bench(tmp_path, "tables/tables/anygram.tsv", 20.0, 15.5, 300.0)
    table = cost_table(read_benchmarks(tmp_path)).set_index("rule")
    assert list(table.index) == ["lstm", "tables", "total"]
    assert table.loc["lstm", "jobs"] == 2
    assert table.loc["lstm", "wall_s"] == pytest.approx(700.5)
    assert table.loc["lstm", "cpu_s"] == pytest.approx(670.0)
    assert table.loc["lstm", "longest_job_s"] == pytest.approx(400.5)
    assert table.loc["lstm", "peak_rss_mb"] == pytest.approx(1300.0)
    assert table.loc["total", "wall_s"] == pytest.approx(720.5)
    assert table.loc["total", "jobs"] == 3
    assert "| lstm   |      2 |      700 |" in costs_markdown(table.reset_index())


def test_no_benchmarks_or_a_foreign_file_is_an_error(tmp_path):
    with pytest.raises(DataError, match="no benchmark files"):
        cost_table(read_benchmarks(tmp_path))
    path = tmp_path / "benchmarks" / "jobs" / "x" / "y.tsv"
    path.parent.mkdir(parents=True)
    path.write_text("a\tb\n1\t2\n")
    with pytest.raises(DataError, match="y.tsv: not a Snakemake benchmark file"):
        cost_table(read_benchmarks(tmp_path))


def test_critical_chain_follows_what_each_job_waited_for(tmp_path):
    import os

    from kernbench.report.costs import core_use, critical_chain

    # Two cores from t = 1000 s: prepare (0-10) feeds the gram (10-60) and a baseline (10-20); a second
    # baseline (20-25) fills the free core; svm (60-90) waits for the gram; the table (92-95) for the svm.
    jobs = {"prepare/p": (10, 1010), "gram/g": (50, 1060), "baseline/b1": (10, 1020), "baseline/b2": (5, 1025),
            "svm/s": (30, 1090), "tables/t": (3, 1095)}
    for job, (wall, end) in jobs.items():
        _bench(tmp_path, f"{job}.tsv", wall, wall / 2, 100.0)
        os.utime(tmp_path / "benchmarks" / "jobs" / f"{job}.tsv", (end, end))
    chain = critical_chain(read_benchmarks(tmp_path))
    assert list(chain["job"]) == ["prepare/p", "gram/g", "svm/s", "tables/t"]
    assert list(chain["step"]) == [1, 2, 3, 4]
    assert chain["start_s"].tolist() == pytest.approx([0, 10, 60, 92])
    assert chain["end_s"].tolist() == pytest.approx([10, 60, 90, 95])
    assert chain["waited_s"].tolist() == pytest.approx([0, 0, 0, 2])
    use = core_use(read_benchmarks(tmp_path))
    # Exactly one job runs over 0-10 (prepare), 25-60 (gram), 60-90 (svm) and 92-95 (table); none over 90-92.
    assert use["span_s"] == pytest.approx(95)
    assert use["one_job_s"] == pytest.approx(78)
    assert use["cpu_s"] == pytest.approx(54)
    assert use["mean_cores"] == pytest.approx(54 / 95)
    text = costs_markdown(cost_table(read_benchmarks(tmp_path)), chain, use)
    assert "54 s of CPU over the 95 s from the first job's start to the last job's end, 0.57 cores busy" in text
    assert "exactly one job ran for 78 s of them" in text
    assert "4 jobs over 95 s from the first job's start to the last job's end, 2 s of it between jobs" in text
    assert "| gram    |      1 |       50 |" in text
