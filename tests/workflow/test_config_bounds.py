"""Config values that make no sense are refused at start-up, naming the key and the value."""

from __future__ import annotations

import copy
import sys

import jsonschema
import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import update_config, validate

from kernbench.config_check import ConfigError, check_results_dir
from kernbench.config_schema import check_top_level_keys, composed_schema, fragment_paths
from kernbench.papers import PAPERS
from tests.conftest import REPO_ROOT, SNAKEMAKE, run_snakemake

WORKFLOW_SCHEMA = REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml"
SCHEMA = composed_schema(WORKFLOW_SCHEMA, PAPERS)


def default_config(override: dict) -> dict:
    config = copy.deepcopy(yaml.safe_load((REPO_ROOT / "config.yaml").read_text()))
    update_config(config, override)
    return config


def checked(override: dict) -> dict:
    """The default config with ``override`` merged in, through the schema checks the workflow runs at start-up."""
    config = default_config(override)
    check_top_level_keys(config, SCHEMA)
    for schema in (WORKFLOW_SCHEMA, *fragment_paths(PAPERS)):
        validate(config, schema=str(schema))
    return config


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ({"tables": ["baselines", "baselines"]}, "['baselines', 'baselines'] has non-unique elements"),
        ({"uncertainty": {"resamples": 1}}, "1 is less than the minimum of 100"),
        ({"uncertainty": {"resamples": 99}}, "99 is less than the minimum of 100"),
        ({"semeval14": {"dev_fraction": 0.001}}, "0.001 is less than the minimum of 0.05"),
        ({"semeval14": {"dev_fraction": 0.6}}, "0.6 is greater than the maximum of 0.5"),
        ({"fisher": {"cv_folds": 1000}}, "1000 is greater than the maximum of 20"),
        ({"fisher": {"cv_folds": 1}}, "1 is less than the minimum of 2"),
        ({"ordinal": {"table_xi": []}}, "[] should be non-empty"),
        ({"ordinal": {"table_xi": [0.1, 0.1]}}, "[0.1, 0.1] has non-unique elements"),
    ],
)
def test_values_past_a_bound_are_refused(override, named):
    with pytest.raises(WorkflowError) as error:
        checked(override)
    assert named in str(error.value)
    with pytest.raises(jsonschema.ValidationError) as composed:
        jsonschema.Draft202012Validator(SCHEMA).validate(default_config(override))
    assert named in str(composed.value)


@pytest.mark.parametrize(
    "override",
    [
        {"tables": ["baselines", "ordinal"]},
        {"uncertainty": {"resamples": 100}},
        {"semeval14": {"dev_fraction": 0.05}},
        {"semeval14": {"dev_fraction": 0.5}},
        {"fisher": {"cv_folds": 20}},
        {"ordinal": {"table_xi": [0.3]}},
    ],
)
def test_values_on_a_bound_are_accepted(override):
    jsonschema.Draft202012Validator(SCHEMA).validate(checked(override))


def test_every_profile_of_the_shipped_config_is_within_the_bounds():
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())
    for name, section in config["profiles"].items():
        checked(copy.deepcopy(section)), name


def test_results_dir_naming_a_file_is_refused(tmp_path):
    (tmp_path / "afile").write_text("")
    with pytest.raises(ConfigError, match=rf"config: results_dir='{tmp_path}/afile' is an existing file"):
        check_results_dir(tmp_path / "afile")
    with pytest.raises(ConfigError, match=rf"results_dir='{tmp_path}/afile/sub' lies under '{tmp_path}/afile', which is"):
        check_results_dir(tmp_path / "afile" / "sub")
    check_results_dir(tmp_path / "new" / "sub")  # a directory to be made
    check_results_dir(tmp_path)


@pytest.mark.parametrize(("results", "override"), [("afile", None), ("r", "tables=[baselines,baselines]")])
def test_workflow_start_up_names_the_key(tmp_path, results, override):
    (tmp_path / "afile").write_text("")
    command = [*SNAKEMAKE, "--cores", "2", "--dry-run", "--config", f"results_dir={tmp_path / results}"]
    result = run_snakemake(command + ([override] if override else []), cwd=REPO_ROOT)
    message = result.stdout + result.stderr
    assert result.returncode != 0
    assert "NotADirectoryError" not in message and "Traceback" not in message, message[-3000:]
    named = f"results_dir='{tmp_path / 'afile'}' is an existing file" if override is None else "non-unique elements"
    assert named in message, message[-3000:]
