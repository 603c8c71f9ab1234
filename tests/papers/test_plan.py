"""Each paper's planner: the run records, outputs and sensitivity files the workflow builds under a config."""

from __future__ import annotations

import copy

import pytest
import yaml

from kernbench.paper import resolve
from kernbench.papers import PAPERS
from tests.conftest import REPO_ROOT


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load((REPO_ROOT / "config.yaml").read_text())


def _targets(config, paper):
    return resolve(PAPERS[paper].targets)(config, "R")


def test_full_profile_plans_every_run_of_the_three_tables(config):
    anygram, fisher, ordinal = (_targets(config, p) for p in ("anygram", "fisher", "ordinal"))
    # Table 3: AGK sm/west/wess on laptop, restaurant and SST, NGTK sm/west on the two SemEval sets,
    # and 2 LSTMs x 3 seeds on the three datasets.
    kernels = [r for r in anygram.records if "/kernels/" in r]
    lstms = [r for r in anygram.records if "/lstm/" in r]
    assert len(kernels) == 3 * 3 + 2 * 2 and len(lstms) == 3 * 2 * 3
    assert "R/runs/anygram/sst/kernels/AGKwess.json" in kernels
    assert "R/runs/anygram/semeval14_laptop/lstm/BiLSTM_seed20140825.json" in lstms
    # Table 1: six systems on the ten categories; Figure 1: nine systems on two review sets.
    assert len(fisher.records) == 6 * 10 and "R/runs/fisher/reuters/FSA-ln/crude.json" in fisher.records
    assert len(ordinal.records) == 2 * 9 and "R/runs/ordinal/reviews_hotel/featsel/rr_nc_idf.json" in ordinal.records
    assert ordinal.md_subset == {"xi": config["ordinal"]["table_xi"]}
    assert sorted(ordinal.outputs) == sorted(
        ["R/figures/ordinal_reviews_clothing.png", "R/figures/ordinal_reviews_hotel.png"]
        + ["R/tables/ordinal_claims.csv", "R/tables/ordinal_claims.md"]
    )
    # One file of rows per LSTM choice, over both SemEval sets.
    assert [p for p in anygram.sensitivity if "/lstm." in p] == [
        f"R/sensitivity/anygram/lstm.{choice}.csv" for choice in ("trainable_embeddings", "bucket_batches")
    ]
    assert sorted(fisher.sensitivity) == sorted(
        f"R/sensitivity/fisher/fisher.{c}.csv"
        for c in ("ap_reading", "c", "documents", "loss", "solver", "lowercase", "collapse_whitespace",
                  "max_state_length")
    )


def test_a_paper_whose_table_is_not_asked_for_builds_no_figures(config):
    narrow = copy.deepcopy(config)
    narrow["tables"] = ["baselines"]
    narrow["ordinal"]["datasets"] = []
    assert _targets(narrow, "anygram").outputs == [] and _targets(narrow, "fisher").outputs == []
    ordinal = _targets(narrow, "ordinal")
    assert (ordinal.records, ordinal.outputs, ordinal.sensitivity) == ([], [], [])


def test_lstm_runs_follow_the_datasets_the_config_keeps(config):
    narrow = copy.deepcopy(config)
    narrow["datasets"] = [d for d in narrow["datasets"] if d != "sst"]
    records = _targets(narrow, "anygram").records
    assert not [r for r in records if "/sst/" in r]
    assert len([r for r in records if "/lstm/" in r]) == 2 * 2 * 3


def test_an_lstm_choice_whose_alternative_is_the_default_is_not_measured(config):
    same = copy.deepcopy(config)
    same["lstm"]["sensitivity_bucket_batches"] = same["lstm"]["bucket_batches"]
    lstm_rows = [p for p in _targets(same, "anygram").sensitivity if "/lstm." in p]
    assert lstm_rows == ["R/sensitivity/anygram/lstm.trainable_embeddings.csv"]
