"""The workflow as a user runs it: config checked at start-up, bad raw data stops cleanly, smoke run end to end."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import string
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO_ROOT, SNAKEMAKE, finished_smoke_run, run_snakemake


def snakemake(*args, cwd=REPO_ROOT):
    return run_snakemake([*SNAKEMAKE, "--cores", "2", *args], cwd=cwd)


def kernbench(*args):
    return subprocess.run([sys.executable, "-m", "kernbench.cli", *args], capture_output=True, text=True)


BAD_CONFIGS = [
    ("datasets=[sst,imdb]", "imdb"),
    ("seed=-1", "seed"),
    ("semeval14={dev_fraction: -0.2}", "dev_fraction"),
    ("no_such_key=1", "config: unknown key 'no_such_key'"),
    ("seed=twelve", "twelve"),
    ("seed=4294967296", "seed"),  # numpy and scikit-learn take 32-bit seeds
    ("seed=1.5", "seed"),
    ("anygram={lam: 1.5}", "['lam']"),
    ("profile=huge", "huge"),
    ("baselines={C: [], reuters_C: 1, svr_epsilon: 0, min_df: 1, sublinear_tf: false}", "['C']"),
    ("fisher={c: auto}", "auto"),
    ("catalog={sst: {path: mine.csv, sha256: " + "0" * 64 + "}}", "catalog.sst: 'sst' is a built-in dataset"),
    ("ordinal={datasets: [sst]}", "ordinal.datasets names 'sst', not one of the rated (1-5) datasets"),
    ("catalog={mine: {path: mine.txt, sha256: " + "0" * 64 + "}}", "mine.txt"),
    # a paper's section, checked by the schema fragment of its package and by its list of names
    ("fisher={k: 9}", "On instance['fisher']['k']"),
    ("fisher={lowercase: maybe}", "'maybe' is not of type 'boolean'"),
    ("lstm={no_such_option: 1}", "'no_such_option' was unexpected"),
    ("fisher={categories: [earn, wheat2]}", "config: fisher.categories names 'wheat2', not one of the Reuters"),
    ("lstm={hyperparameters: {imdb: {}}}", "config: lstm.hyperparameters names 'imdb'"),
    ("tables=[baselines,imdb]", "config: tables names 'imdb'"),
    ("gap_tolerance={ordinal: 1}", "config: gap_tolerance names 'ordinal'"),
]


@pytest.mark.parametrize(("override", "named"), BAD_CONFIGS)
def test_bad_config_is_rejected_at_start_up_naming_the_key(tmp_path, override, named, monkeypatch):
    results = tmp_path / "results"
    monkeypatch.chdir(REPO_ROOT)
    assert named in _planning_error(f"results_dir={results}", override)
    assert not results.exists()


@pytest.mark.parametrize(
    ("override", "named"), [case for case in BAD_CONFIGS if case[0] in ("no_such_key=1", "seed=twelve")]
)
def test_bad_config_stops_the_command_line_naming_the_key(tmp_path, override, named):
    """On the command line: a non-zero exit and the message, for a key no schema knows and for a schema's refusal."""
    results = tmp_path / "results"
    result = snakemake("--dry-run", "--config", f"results_dir={results}", override)
    assert result.returncode != 0
    assert named in result.stdout + result.stderr
    assert not results.exists()


def test_integral_float_seed_reaches_every_command_as_an_integer(tmp_path):
    result = snakemake("--dry-run", "--printshellcmds", "--config", f"results_dir={tmp_path / 'r'}", "seed=1e3")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    seeds = re.findall(r"--seed (\S+)", result.stdout)
    assert len(seeds) > 20 and set(seeds) - {"20140823", "20140824", "20140825"} == {"1000"}


def test_integers_as_int_follows_the_schema():
    from kernbench.config_check import integers_as_int

    schema = {
        "definitions": {"count": {"type": "integer"}},
        "properties": {
            "seed": {"type": "integer"},
            "C": {"type": "number"},
            "grid": {"type": "array", "items": {"$ref": "#/definitions/count"}},
            "sub": {"type": "object", "additionalProperties": {"$ref": "#/definitions/count"}},
        },
    }
    got = integers_as_int({"seed": 1e3, "C": 1.0, "grid": [2.0, 3], "sub": {"a": 4.0}, "free": 5.0}, schema)
    assert got == {"seed": 1000, "C": 1.0, "grid": [2, 3], "sub": {"a": 4}, "free": 5.0}
    assert [type(v) for v in (got["seed"], got["C"], got["grid"][0], got["sub"]["a"], got["free"])] == [
        int, float, int, int, float
    ]


@pytest.mark.parametrize("table", ["baselines", "fisher", "anygram", "ordinal"])
def test_any_single_table_plans(tmp_path, table):
    # -p: the rule blocks, which the default profile's terminal leaves out
    result = snakemake("--dry-run", "-p", "--config", f"results_dir={tmp_path / 'r'}", f"tables=[{table}]")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    others = {"baselines", "fisher", "anygram", "ordinal"} - {table}
    planned = re.findall(r"tables/(\w+)\.csv", result.stdout)
    assert table in planned and not others & set(planned)


SENSITIVITY_RULES = ("sensitivity", "lstm_sensitivity_run", "fisher_sensitivity", "anygram_sensitivity_lam",
                     "ordinal_sensitivity_prp_weights", "ordinal_sensitivity_nc_epsilon")


@pytest.mark.parametrize(
    ("overrides", "built"),
    [([], True), (["sensitivity_table=false"], False), (["profile=smoke"], True),
     (["profile=smoke", "sensitivity_table=false"], False)],
)
def test_the_default_target_builds_the_sensitivity_table_only_where_the_config_asks(tmp_path, overrides, built):
    results = tmp_path / "r"
    result = snakemake("--dry-run", "--printshellcmds", "--config", f"results_dir={results}", *overrides)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    planned = set(re.findall(r"^(?:local)?rule (\w+):", result.stdout, re.M))
    assert {"results_summary", "costs", "all"} <= planned
    assert {rule: rule in planned for rule in SENSITIVITY_RULES} == {rule: built for rule in SENSITIVITY_RULES}
    [summary] = [line for line in result.stdout.splitlines() if "kernbench results-summary" in line]
    assert (f"--sensitivity {results}/tables/sensitivity.csv" in summary) == built
    assert (f"{results}/report/sensitivity.html" in result.stdout) == built


def test_steps_that_combine_runs_go_ahead_of_the_runs_that_can_wait():
    priorities = {rule.name: rule.priority for rule in _rules({"profile": "smoke"})}
    combining = ("tables", "significance_paper", "significance", "track", "ordinal_figure", "fisher_plot",
                 "anygram_accuracy_figure", "anygram_throughput_figure", "sensitivity", "results_summary")
    assert {rule: priorities[rule] for rule in combining} == {rule: 1 for rule in combining}
    waiting = ("ordinal_run", "lstm_sensitivity_run", "anygram_benchmark", "anygram_sensitivity_lam")
    assert {rule: priorities[rule] < 1 for rule in waiting} == {rule: True for rule in waiting}
    assert priorities["prepare"] == priorities["embeddings"] == 2 and priorities["lstm"] == 1
    # The jobs that the eight Fisher sensitivity jobs wait for start early, so that those fill the run's gaps.
    assert priorities["fisher_features"] == priorities["fisher_svm"] == 1


def test_long_runs_that_can_wait_start_before_the_short_ones():
    from snakemake.iocontainers import Wildcards

    from kernbench.papers.fisher import plan as fisher_plan

    rules = {rule.name: rule for rule in _rules({"profile": "smoke"})}

    def priority(rule, **wildcards):
        return rules[rule].expand_priority(Wildcards(fromdict=wildcards), input=None, attempt=1)

    fisher = {choice: priority("fisher_sensitivity", choice=choice) for choice in fisher_plan.SENSITIVITY_CHOICES}
    long = {"lstm_sensitivity_run": priority("lstm_sensitivity_run"), "ordinal_run": priority("ordinal_run"),
            "anygram_benchmark": priority("anygram_benchmark"),
            **{f"fisher.{c}": fisher[c] for c in ("c", "documents", "lowercase", "collapse_whitespace",
                                                 "max_state_length")}}
    short = {"anygram_sensitivity_lam": priority("anygram_sensitivity_lam"),
             "ordinal_sensitivity_prp_weights": priority("ordinal_sensitivity_prp_weights"),
             **{f"fisher.{c}": fisher[c] for c in ("loss", "solver", "ap_reading")}}
    assert set(long.values()) == {0.5} and set(short.values()) == {0}, (long, short)


@pytest.mark.parametrize(("overrides", "threads"), [({}, 1), ({"anygram": {"benchmark": {"threads": 2}}}, 2)])
def test_throughput_benchmark_takes_the_configured_thread_count(overrides, threads):
    [benchmark] = [rule for rule in _rules(overrides) if rule.name == "anygram_benchmark"]
    assert benchmark.resources["_cores"].value == threads


def test_broken_config_yaml_is_named_with_its_line(tmp_path):
    lines = (REPO_ROOT / "config.yaml").read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if line.startswith("seed:"))
    lines[number] = "seed: [20140823"
    (tmp_path / "config.yaml").write_text("\n".join(lines) + "\n")
    result = snakemake("--dry-run", "--snakefile", str(REPO_ROOT / "Snakefile"), cwd=tmp_path)
    assert result.returncode != 0
    message = result.stdout + result.stderr
    assert str(tmp_path / "config.yaml") in message and f"starts on line {number + 1})" in message, message[-2000:]


@pytest.mark.parametrize(
    ("override", "present", "absent"),
    [
        ("anygram={lam: 0.5}", "AGKsm_lam0.5/", "_lam0.4"),
        ("data={download: false}", "--no-download --timeout 30 ", "/raw  --timeout"),  # mirror, timeout kept
        ("semeval14={dev_fraction: 1e-1}", "--dev-fraction 0.1 ", "--dev-fraction 1e-1"),
    ],
)
def test_nested_config_override_is_typed_and_merged_over_the_defaults(tmp_path, override, present, absent):
    result = snakemake("--dry-run", "--printshellcmds", "--config", f"results_dir={tmp_path / 'r'}", override)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert present in result.stdout and absent not in result.stdout


def test_typed_overrides_reads_nested_strings_where_the_schema_wants_other_types():
    from kernbench.config_check import typed_overrides

    schema = {
        "properties": {
            "data": {"properties": {"download": {"type": "boolean"}, "mirror": {"type": "string"},
                                    "timeout_s": {"type": "number"}}},
            "grid": {"type": "array", "items": {"type": "number"}},
            "seed": {"type": "integer"},
        }
    }
    got = typed_overrides(
        {"data": {"download": "false", "mirror": "123", "timeout_s": "1e3"}, "grid": ["0.5", "2"], "seed": "twelve"},
        schema,
    )
    assert got == {
        "data": {"download": False, "mirror": "123", "timeout_s": 1000.0}, "grid": [0.5, 2], "seed": "twelve"
    }


def test_slurm_profile_plans_the_whole_workflow(tmp_path):
    result = snakemake("--profile", "workflow/profiles/slurm", "--dry-run", "--config", f"results_dir={tmp_path / 'r'}")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    plan = result.stdout + result.stderr
    rules = ("fetch_sst", "prepare", "baseline_classification", "anygram_gram", "anygram_svm_agk", "anygram_svm_ngtk", "lstm", "fisher_svm",
             "ordinal_run", "track", "tables", "significance", "results_summary", "all")
    for rule in rules:
        assert any(f"{kind} {rule}:" in plan for kind in ("rule", "localrule", "checkpoint", "localcheckpoint")), rule
    assert not (tmp_path / "r").exists()


def _raw_copy(mirror: Path, tmp_path: Path) -> Path:
    raw = tmp_path / "raw"
    shutil.copytree(mirror / "semeval14", raw / "semeval14")
    shutil.copytree(mirror / "sst", raw / "sst")
    for path in raw.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return raw


def test_truncated_semeval_xml_stops_naming_the_file_and_writes_nothing(mirror, tmp_path):
    raw = _raw_copy(mirror, tmp_path)
    xml = raw / "semeval14/Laptop_Train_v2.xml"
    xml.write_bytes(xml.read_bytes()[:50_000])
    out = tmp_path / "prepared/semeval14_laptop.parquet"
    result = kernbench(
        "prepare", "semeval14_laptop", "--raw-dir", str(raw), "--out", str(out), "--dev-fraction", "0.1", "--seed", "1"
    )
    assert result.returncode == 1
    assert "Laptop_Train_v2.xml" in result.stderr and "line" in result.stderr
    assert not out.exists() and not list(out.parent.glob("*"))


def test_malformed_sst_tree_stops_naming_file_and_line(mirror, tmp_path):
    raw = _raw_copy(mirror, tmp_path)
    dev = raw / "sst/dev.txt"
    lines = dev.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[6] = lines[6].rstrip("\n").rstrip(")") + "\n"
    dev.write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "prepared/sst.parquet"
    result = kernbench("prepare", "sst", "--raw-dir", str(raw), "--out", str(out), "--dev-fraction", "0.1", "--seed", "1")
    assert result.returncode == 1
    assert "dev.txt" in result.stderr and "line 7" in result.stderr
    assert not out.exists()


def test_a_given_smoke_run_is_read_with_its_terminal_output_and_refused_without_it(tmp_path):
    # KERNBENCH_SMOKE_RUN (conftest.smoke_run): the run's results_dir and what its Snakemake command printed.
    (tmp_path / "results").mkdir()
    (tmp_path / "results/results.md").write_text("# Results\n")
    (tmp_path / "snakemake.stdout").write_text("kernbench: finished (smoke profile).\n")
    with pytest.raises(pytest.fail.Exception, match=r"not a finished smoke run: no \S*snakemake\.stderr$"):
        finished_smoke_run(tmp_path)
    (tmp_path / "snakemake.stderr").write_text("[12:00:00] 1 of 1 steps (100%) done: all (0s)\n")
    results, run = finished_smoke_run(tmp_path)
    assert results == tmp_path / "results" and run.returncode == 0
    assert run.stdout == "kernbench: finished (smoke profile).\n" and run.stderr.startswith("[12:00:00] 1 of 1")
    (tmp_path / "results/results.md").unlink()
    with pytest.raises(pytest.fail.Exception, match=r"no \S*results/results\.md$"):
        finished_smoke_run(tmp_path)


@pytest.mark.slow
def test_smoke_profile_end_to_end_and_idempotent_rerun(smoke_run):
    # Every experiment at once, with more jobs than cores when the suite makes the run (conftest.smoke_run):
    # the single tracking writer must still log each run once.
    results, first = smoke_run
    # The closing message names the tables, the report command and the dashboard of this run.
    assert "kernbench: finished (smoke profile)." in first.stdout
    assert f"--report {results / 'report.html'} --config profile=smoke results_dir={results}" in first.stdout
    assert f"--backend-store-uri sqlite:///{results / 'mlflow.db'}" in first.stdout
    # Long jobs report progress in their logs: the bootstrap of the intervals, one line per redraw.
    bootstrap = (results / "logs/tables/anygram.log").read_text()
    assert "bootstrap intervals (200 resamples): 100%" in bootstrap and "\r" not in bootstrap
    # ... and the LSTMs their epochs, with the metrics of the last one: each system of the dataset's one job.
    lstm_log = (results / "logs/runs/anygram/sst/lstm.log").read_text()
    for system in ("UniLSTM", "BiLSTM"):
        assert re.search(rf"^sst {system} seed \d+: 100%\|#+\| 2/2 \[.*val_accuracy=", lstm_log, re.M), lstm_log[-2000:]
    # The terminal (the default profile's logger): one line per finished job under a step total fixed from the
    # start, no rule block, no line listing files.
    steps = re.findall(r"^\[\d\d:\d\d:\d\d\] \d+ of (\d+) steps \(\d+%\) done: \w+", first.stderr, re.M)
    assert steps and set(steps) == {str(len(steps))}, sorted(set(steps))
    assert not re.search(r"^(local)?(rule|checkpoint) \w+:$", first.stderr, re.M)
    assert max(len(line) for line in first.stderr.splitlines()) <= 300

    table = pd.read_csv(results / "tables/baselines.csv")
    assert list(table.columns[:9]) == ["dataset", "system", "split", "metric", "value", "ci_low", "ci_high",
                                      "paper_value", "delta"]
    for name in ("baselines", "anygram", "fisher", "ordinal"):
        t = pd.read_csv(results / f"tables/{name}.csv")
        with_ci = t.dropna(subset=["ci_low"])
        assert len(with_ci) >= 0.9 * len(t), name  # every cell with per-item predictions has its interval
        assert ((with_ci["ci_low"] <= with_ci["value"] + 1e-9) & (with_ci["value"] <= with_ci["ci_high"] + 1e-9)).all()
    # The committed reference has the files and columns this run writes (its numbers: kernbench compare in CI).
    reference = REPO_ROOT / "results/reference/smoke/tables"
    written = sorted(p.name for p in (results / "tables").iterdir() if p.suffix in (".csv", ".md"))
    assert sorted(p.name for p in reference.iterdir()) == written
    for name in (n for n in written if n.endswith(".csv")):
        assert list(pd.read_csv(reference / name).columns) == list(pd.read_csv(results / "tables" / name).columns), name
    significance = pd.read_csv(results / "tables/significance.csv")
    assert {"anygram", "fisher", "ordinal"} <= set(significance["paper"])
    assert significance["p_bootstrap"].between(0, 1).all()
    summary = (results / "results.md").read_text()
    assert "Table 3" in summary and "Table 1" in summary and "Figure 1" in summary
    for figure in ("anygram_accuracy", "anygram_throughput", "fisher_average_precision", "ordinal_reviews_hotel"):
        assert (results / f"figures/{figure}.png").stat().st_size > 1000
    assert {"semeval14_laptop", "semeval14_restaurant", "sst", "earn", "corn", "reviews_clothing", "reviews_hotel"} <= set(
        table["dataset"]
    )
    three = table[(table["system"] == "Triv-3stars") & (table["metric"] == "mae_macro")]
    assert (three["value"] == 1.2).all() and (three["delta"] == 0).all()
    for name in ("semeval14_laptop", "sst", "reuters", "reviews_hotel"):
        frame = pd.read_parquet(results / f"prepared/{name}.parquet")
        assert {"id", "split", "label"} <= set(frame.columns)
        assert frame["split"].value_counts().max() <= 400
    assert (results / "prepared/embeddings_glove6b50d.npz").is_file()

    def mlflow_runs():
        """Runs of run records per experiment (not their per-category or per-level children, not summaries)."""
        with sqlite3.connect(results / "mlflow.db") as db:
            return db.execute(
                "SELECT e.name, COUNT(*) FROM runs r JOIN experiments e USING (experiment_id) "
                "JOIN tags k ON k.run_uuid = r.run_uuid AND k.key = 'run_key' "
                "WHERE r.lifecycle_stage = 'active' AND k.value NOT LIKE '%/summary' AND NOT EXISTS "
                "(SELECT 1 FROM tags p WHERE p.run_uuid = r.run_uuid AND p.key = 'mlflow.parentRunId') "
                "GROUP BY e.name ORDER BY e.name"
            ).fetchall()

    records = sorted(p for p in results.glob("runs/*/**/*.json") if "run_key" in json.loads(p.read_text()))
    papers = pd.Series([r.relative_to(results / "runs").parts[0] for r in records]).value_counts().sort_index()
    expected = [(f"kernbench-{paper}", count) for paper, count in papers.items()]
    assert papers["anygram"] >= 6 and papers["fisher"] >= 2 and papers["ordinal"] >= 6
    assert mlflow_runs() == expected  # every run record logged exactly once

    # Every job runs its command in its own process, which its benchmark file measures: none is a bare
    # launcher (a Python that imports numpy and pandas alone takes more than 0.3 s of CPU and 50 MB).
    # Snakemake samples a job's processes when it starts it, then about once a second, and keeps what the
    # last sample saw. A job that ends within its first second is seen by the first sample alone, which
    # finds only the shell that starts its command (a 0.5 s fetch job: no CPU, 3 MB), so such jobs are
    # left out; a job of one to two seconds may show only part of its CPU, or its shell when it ends just
    # before the next sample, but most show their command by either figure, and a longer one always by its CPU.
    from kernbench.report.costs import read_benchmarks

    jobs = read_benchmarks(results)
    assert len(jobs) > 50
    short = (jobs["wall_s"] >= 1) & (jobs["wall_s"] < 2)
    long = jobs["wall_s"] >= 2
    no_cpu = jobs["cpu_s"] <= 0.3
    shell_only = short & no_cpu & (jobs["rss_mb"] <= 50)
    columns = ["job", "wall_s", "cpu_s", "rss_mb"]
    assert long.sum() > 20 and short.sum() > 10
    assert not (no_cpu & long).any(), jobs.loc[no_cpu & long, columns].to_string()
    assert shell_only.sum() <= 0.1 * short.sum(), jobs.loc[shell_only, columns].to_string()

    # Every run carries the cost of the job that made it, found by its record's path or, for a job that makes
    # several runs, by the job its paper's planner names: no path there names a job that did not run.
    with sqlite3.connect(results / "mlflow.db") as db:
        costless = db.execute(
            "SELECT k.value FROM runs r JOIN tags k ON k.run_uuid = r.run_uuid AND k.key = 'run_key' "
            "WHERE k.value NOT LIKE '%/summary' AND NOT EXISTS (SELECT 1 FROM tags p WHERE p.run_uuid = r.run_uuid "
            "AND p.key = 'mlflow.parentRunId') AND NOT EXISTS (SELECT 1 FROM latest_metrics m "
            "WHERE m.run_uuid = r.run_uuid AND m.key IN ('cost.job.cpu_s', 'cost.lstm.cpu_s', 'cost.svm.cpu_s'))"
        ).fetchall()
    assert not costless, costless

    # The manifest names each record's run and each paper's summary run once (test_tracking_server.py tracks the
    # run again and finds every run unchanged).
    manifest = pd.read_csv(results / "tracking/mlflow_runs.tsv", sep="\t")
    assert set(manifest["status"]) == {"logged"} and manifest["run_key"].nunique() == len(records) + len(papers)
    again = snakemake("--config", "profile=smoke", f"results_dir={results}")
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr
    assert mlflow_runs() == expected
    # The report of this run: tests/workflow/test_report.py.


@contextlib.contextmanager
def _workflow(config):
    """The workflow as Snakemake's API parses it in this process for ``config`` (overrides of config.yaml)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        yield api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(config=config),
            snakefile=REPO_ROOT / "Snakefile",
            workdir=REPO_ROOT,
        )


def _rules(config):
    """Every rule of the workflow as Snakemake builds it for ``config`` (overrides of config.yaml)."""
    with _workflow(config) as workflow:
        return list(workflow._workflow.rules)


def _planning_error(*overrides: str) -> str:
    """The message of the error that stops Snakemake planning the workflow with ``--config OVERRIDES``.

    In this process, through Snakemake's API with the command line's parser of ``--config``: each case costs
    a parse of the Snakefile instead of a Snakemake start-up. The messages of the error and of every error
    it wraps or was raised from.
    """
    from snakemake.cli import parse_config

    try:
        with _workflow(parse_config(overrides)) as workflow:
            workflow.dag()
    except Exception as error:  # any error that stops the plan
        messages, seen = [], error
        while seen is not None:
            messages += [str(seen), *(str(arg) for arg in seen.args if isinstance(arg, Exception))]
            seen = seen.__cause__ or seen.__context__
        return "\n".join(messages)
    raise AssertionError(f"the workflow plans with {overrides}")


def test_each_papers_rules_come_from_files_of_its_own_package():
    from kernbench.papers import PAPERS

    files = {Path(str(rule.snakefile)).resolve() for rule in _rules({})}
    for name in PAPERS:
        package = REPO_ROOT / "src/kernbench/papers" / name
        assert {f.name for f in files if f.parent == package} == {spec.partition(":")[2] for spec in PAPERS[name].rules}
    shared = {f.name for f in files if f.parent == REPO_ROOT / "workflow/rules"}
    assert shared == {f"{n}.smk" for n in ("data", "baselines", "tables", "tracking", "sensitivity", "report")}  # common: no rule
    assert files <= {REPO_ROOT / "Snakefile"} | {REPO_ROOT / "workflow/rules" / n for n in shared} | {
        REPO_ROOT / "src/kernbench/papers" / name / spec.partition(":")[2] for name in PAPERS for spec in PAPERS[name].rules
    }


_SAFE_UNQUOTED = re.compile(r"^[-\w.]*$")  # a name, number or flag: no space, quote or path separator


def _flag_values(function, rule) -> list:
    """Values of a params function of the wildcards alone, over sample wildcard values (None if it needs more)."""
    from types import SimpleNamespace

    names = list(rule.wildcard_names)
    samples = ["x", "AGKsm_lam0.4", "AGKwess_lam0.4", "NGTKsm_lam0.4"]
    try:
        return [function(SimpleNamespace(**{n: v for n in names})) for v in samples]
    except Exception:  # needs input/output or other arguments: not a plain flag
        return [None]


_CATALOG = {
    "catalog": {
        "mine": {"path": "own data/mine.csv", "sha256": "0" * 64},
        "rated": {"path": "own data/rated.csv", "sha256": "0" * 64, "task": "ordinal"},
        "news": {"path": "own data/news.parquet", "sha256": "0" * 64, "task": "ranking", "categories": ["a", "b-c"]},
    },
    "datasets": ["sst", "mine", "rated", "news"],
    "anygram": {"agk_datasets": ["sst", "mine"]},
    "lstm": {"datasets": ["mine"]},
    "ordinal": {"datasets": ["rated"]},
}


@pytest.mark.parametrize(
    "config",
    [{}, {"anygram": {"tile_rows": 256, "training": "primal"}}, _CATALOG],
    ids=["default", "tiled-primal", "catalog"],
)
def test_every_path_in_every_shell_command_is_quoted(tmp_path, config, monkeypatch):
    """A results_dir (or mirror) with a space or quote in it must reach every command as one argument."""
    from kernbench.catalog_config import ENV_VAR

    monkeypatch.setenv(ENV_VAR, "")  # put back as it was after the test: building the workflow sets it
    rules = [r for r in _rules({"results_dir": str(tmp_path / "with space"), **config}) if r.shellcmd]
    if "catalog" in config:
        assert {"fetch_mine", "fetch_rated", "fetch_news", "embeddings_catalog", "fisher_svm_news"} <= {
            r.name for r in rules
        }
    assert len(rules) >= 20
    unquoted = []
    for rule in rules:
        for _, field, spec, _ in string.Formatter().parse(rule.shellcmd):
            if field is None or spec == "q" or field == "threads" or field.split(".")[0] in ("wildcards", "resources"):
                continue
            kind, _, name = field.partition(".")
            value = getattr(rule, kind)[name] if kind == "params" and name else None
            if callable(value):
                # A flag computed from the wildcards: every value it can take must be safe unquoted.
                value = _flag_values(value, rule)
            values = value if isinstance(value, list) else [value]
            safe = all(isinstance(v, (int, float)) or (isinstance(v, str) and _SAFE_UNQUOTED.match(v)) for v in values)
            if kind == "params" and safe:
                continue
            unquoted.append(f"{rule.name}: {{{field}}}")
    assert not unquoted


def test_fetch_job_with_a_space_in_results_dir_logs_inside_it(tmp_path):
    workdir = tmp_path / "work dir"
    results = workdir / "my results"
    target = results / "raw/sst/train.txt"
    result = snakemake("--config", f"results_dir={results}", "--", str(target))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert target.stat().st_size > 0
    log = results / "logs/fetch/sst.log"
    assert log.is_file()
    assert sorted(p.name for p in workdir.iterdir()) == ["my results"]  # no stray file beside it
    assert not (REPO_ROOT / "my").exists() and not (tmp_path / "work").exists()
