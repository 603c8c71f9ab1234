"""The config schema: the workflow's file and each paper's fragment. A paper lists the names its keys may hold."""

from __future__ import annotations

import copy
import sys

import jsonschema
import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from kernbench.catalog import Catalog, papers_of_tasks
from kernbench.config_check import ConfigError, check_names, check_yaml_file
from kernbench.config_schema import check_top_level_keys, composed_schema, fragment_path, fragment_paths
from kernbench.data.registry import REUTERS_CATEGORIES
from kernbench.paper import Paper, resolve
from kernbench.papers import PAPERS
from kernbench.papers.anygram.systems import SYSTEMS
from tests.conftest import REPO_ROOT

WORKFLOW_SCHEMA = REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml"
CONFIG = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())

TOY_FRAGMENT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "definitions": {"positive_number": {"type": "number", "exclusiveMinimum": 0}},
    "properties": {
        "toy": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"rate": {"$ref": "#/definitions/positive_number"}, "rounds": {"type": "integer"}},
            "required": ["rate"],
        }
    },
    "required": ["toy"],
}


def toy_paper(tmp_path, monkeypatch, fragment=TOY_FRAGMENT, keys=("toy",)) -> Paper:
    """A paper of an importable package of its own (``tmp_path``) whose config schema is ``fragment``."""
    package = f"toy_{tmp_path.name}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / package / "config.schema.yaml").write_text(yaml.safe_dump(fragment))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, package, raising=False)
    return Paper(name="toy", caption="Toy", compared_metrics=("accuracy",), headline_metric=None, summary="",
                 config_keys=keys, config_schema=f"{package}:config.schema.yaml")  # fmt: skip


def test_each_paper_describes_its_sections_in_its_own_package():
    for paper in PAPERS.values():
        path = fragment_path(paper)
        assert path.parent == REPO_ROOT / "src" / "kernbench" / "papers" / paper.name
        fragment = yaml.safe_load(path.read_text())
        jsonschema.Draft202012Validator.check_schema(fragment)
        assert sorted(fragment["properties"]) == sorted(paper.config_keys)
    workflow = yaml.safe_load(WORKFLOW_SCHEMA.read_text())
    owned = [key for paper in PAPERS.values() for key in paper.config_keys]
    assert sorted(owned) == ["anygram", "fisher", "lstm", "ordinal"]
    assert not set(owned) & set(workflow["properties"])


def test_the_composed_schema_holds_every_key_of_the_config_and_no_other():
    schema = composed_schema(WORKFLOW_SCHEMA, PAPERS)
    assert set(CONFIG) <= set(schema["properties"])
    assert schema["additionalProperties"] is False
    assert {"anygram", "lstm", "fisher", "ordinal", "seed", "datasets"} <= set(schema["required"])
    assert schema["properties"]["fisher"] == yaml.safe_load(fragment_path(PAPERS["fisher"]).read_text())["properties"][
        "fisher"
    ]
    # a fragment's definitions come along, so that its local $ref resolves in the composed schema
    assert {"fisher_systems", "level_range", "lstm_model", "catalog_entry"} <= set(schema["definitions"])
    jsonschema.Draft202012Validator(schema).validate(CONFIG)
    with pytest.raises(jsonschema.ValidationError, match=r"'no_such_key' was unexpected"):
        jsonschema.Draft202012Validator(schema).validate({**CONFIG, "no_such_key": 1})


@pytest.mark.parametrize(
    ("change", "error", "named"),
    [
        ({"anygram": {"lam": 1.5}}, WorkflowError, "On instance['anygram']['lam']"),  # out of range
        ({"ordinal": {"run": {"C": "one"}}}, WorkflowError, "'one' is not of type 'number'"),  # through a $ref
        ({"lstm": {"no_such_option": 1}}, WorkflowError, "'no_such_option' was unexpected"),
        ({"fisher": {"k": 8}}, WorkflowError, "On instance['fisher']['k']"),
        ({"no_such_key": 1}, ConfigError, "config: unknown key 'no_such_key'"),
    ],
)
def test_a_bad_paper_value_or_key_is_refused_naming_it(change, error, named):
    config = copy.deepcopy(CONFIG)
    for key, value in change.items():
        if isinstance(value, dict):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    schema = composed_schema(WORKFLOW_SCHEMA, PAPERS)
    with pytest.raises(error) as refused:
        check_top_level_keys(config, schema)
        for path in (WORKFLOW_SCHEMA, *fragment_paths(PAPERS)):
            validate(config, schema=str(path))
    assert named in str(refused.value)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(config)


def test_a_registered_paper_brings_its_section_into_the_config(tmp_path, monkeypatch):
    toy = toy_paper(tmp_path, monkeypatch)
    papers = {**PAPERS, "toy": toy}
    schema = composed_schema(WORKFLOW_SCHEMA, papers)
    config = {**copy.deepcopy(CONFIG), "toy": {"rate": 0.5, "rounds": 3}}
    with pytest.raises(ConfigError, match=r"unknown key 'toy'"):
        check_top_level_keys(config, composed_schema(WORKFLOW_SCHEMA, PAPERS))
    check_top_level_keys(config, schema)
    assert fragment_paths(papers)[-1] == tmp_path / f"toy_{tmp_path.name}" / "config.schema.yaml"
    for path in (WORKFLOW_SCHEMA, *fragment_paths(papers)):
        validate(config, schema=str(path))
    jsonschema.Draft202012Validator(schema).validate(config)
    config["toy"]["rate"] = 0
    with pytest.raises(WorkflowError, match=r"0 is less than or equal to the minimum of 0"):
        validate(config, schema=str(fragment_path(toy)))
    with pytest.raises(jsonschema.ValidationError, match=r"less than or equal to the minimum of 0"):
        jsonschema.Draft202012Validator(schema).validate(config)
    del config["toy"]
    with pytest.raises(WorkflowError, match=r"'toy' is a required property"):
        validate(config, schema=str(fragment_path(toy)))


def test_a_fragment_must_describe_the_keys_its_paper_declares(tmp_path, monkeypatch):
    toy = toy_paper(tmp_path, monkeypatch, keys=("toy", "toy_extra"))
    declared = r"describes \['toy'\], but paper toy declares config_keys \['toy', 'toy_extra'\]"
    with pytest.raises(ConfigError, match=declared):
        composed_schema(WORKFLOW_SCHEMA, {"toy": toy})


def test_a_key_described_twice_is_refused(tmp_path, monkeypatch):
    fragment = {**TOY_FRAGMENT, "properties": {"seed": {"type": "integer"}}}
    toy = toy_paper(tmp_path, monkeypatch, fragment=fragment, keys=("seed",))
    with pytest.raises(ConfigError, match=r"key 'seed' is already described by .*workflow/schemas/config.schema.yaml"):
        composed_schema(WORKFLOW_SCHEMA, {"toy": toy})


def test_one_definition_name_with_two_meanings_is_refused(tmp_path, monkeypatch):
    fragment = {**TOY_FRAGMENT, "definitions": {"positive_number": {"type": "integer", "minimum": 1}}}
    toy = toy_paper(tmp_path, monkeypatch, fragment=fragment)
    with pytest.raises(ConfigError, match=r"definition 'positive_number' differs from the one in .*config.schema.yaml"):
        composed_schema(WORKFLOW_SCHEMA, {"toy": toy})


@pytest.mark.parametrize(
    ("reference", "named"),
    [("config.schema.yaml", "is not 'package:file'"), ("kernbench.papers.fisher:nothing.yaml", "no file"),
     ("kernbench.no_such_package:config.schema.yaml", "no package 'kernbench.no_such_package'")],
)
def test_a_fragment_that_is_not_there_is_named(reference, named):
    paper = Paper(name="toy", caption="", compared_metrics=(), headline_metric=None, summary="",
                  config_keys=("toy",), config_schema=reference)  # fmt: skip
    with pytest.raises(ConfigError, match=rf"paper toy: config_schema={reference!r}.*{named}"):
        fragment_path(paper)


def _value(config, key):
    for part in key.split("."):
        config = config[part]
    return config


def test_each_paper_checks_names_only_in_its_own_sections_and_every_key_it_names_exists():
    catalog = Catalog.from_config({}, base_dir=REPO_ROOT, papers_of_tasks=papers_of_tasks(PAPERS))
    for paper in PAPERS.values():
        names = resolve(paper.config_names)(catalog)
        assert names, paper.name
        for key, (valid, what) in names.items():
            assert key.split(".")[0] in paper.config_keys, key
            _value(CONFIG, key)  # check_names passes over a missing key: a misspelt one would check nothing
            assert what and set(valid) <= set(catalog) | set(REUTERS_CATEGORIES) | set(SYSTEMS)
            check_names(CONFIG, key, valid, what)
    fisher = resolve(PAPERS["fisher"].config_names)(catalog)
    assert list(fisher["fisher.categories"][0]) == list(REUTERS_CATEGORIES)
    ordinal = resolve(PAPERS["ordinal"].config_names)(catalog)
    assert ordinal["ordinal.datasets"][0] == ["reviews_clothing", "reviews_hotel"]


def test_check_names_checks_the_keys_of_a_mapping():
    config = {"lstm": {"hyperparameters": {"sst": {}, "imdb": {}}}}
    with pytest.raises(ConfigError, match=r"lstm.hyperparameters names 'imdb', not one of the datasets \(sst\)"):
        check_names(config, "lstm.hyperparameters", ["sst"], "datasets")
    check_names(config, "lstm.hyperparameters", ["sst", "imdb"], "datasets")


def test_a_config_file_that_is_not_yaml_is_named_with_its_line(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("seed: 1\ndatasets: [sst, reuters\nprofile: smoke\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"{path}: line 3, column \d+ \(in the value that starts on line 2\)"):
        check_yaml_file(path)
    path.write_text("- seed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        check_yaml_file(path)
