"""Package metadata: licence, citation file and conda environment agree with pyproject.toml."""

from __future__ import annotations

import copy
import json
import re
import tomllib

import jsonschema
import pytest
import yaml

from tests.conftest import REPO_ROOT

# The Citation File Format's own JSON schema, version 1.2.0 (as shipped in cffconvert 2.0.0).
CFF_SCHEMA = REPO_ROOT / "tests" / "data" / "citation-file-format-1.2.0.schema.json"
PAPERS = REPO_ROOT.parent / "shared" / "papers"


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]


@pytest.fixture(scope="module")
def citation() -> dict:
    return yaml.safe_load((REPO_ROOT / "CITATION.cff").read_text())


def _cff_errors(document: dict) -> list[str]:
    validator = jsonschema.Draft7Validator(json.loads(CFF_SCHEMA.read_text()))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def test_citation_file_is_valid_cff_1_2_0(citation):
    assert citation["cff-version"] == "1.2.0"
    assert _cff_errors(citation) == []


def test_cff_schema_rejects_a_broken_citation(citation):
    broken = copy.deepcopy(citation)
    broken["license"] = "not-a-licence"
    del broken["references"][0]["authors"]
    errors = _cff_errors(broken)
    assert any(e.startswith("license:") for e in errors)
    assert any(e.startswith("references/0:") and "authors" in e for e in errors)


def test_citation_agrees_with_the_package_metadata(citation, pyproject):
    assert citation["type"] == "software"
    assert str(citation["version"]) == pyproject["version"]
    assert citation["license"] == pyproject["license"] == "MIT"
    assert citation["authors"] == [{"name": "The kernbench authors"}]


def test_licence_file_is_the_mit_licence_of_the_kernbench_authors(pyproject):
    text = (REPO_ROOT / "LICENSE").read_text()
    assert pyproject["license-files"] == ["LICENSE"]
    assert text.startswith("MIT License\n")
    assert re.search(r"^Copyright \(c\) \d{4} the kernbench authors$", text, re.MULTILINE)
    assert "WITHOUT WARRANTY OF ANY KIND" in text


def test_citation_references_are_the_three_papers_in_the_shared_folder(citation):
    if not PAPERS.is_dir():
        pytest.fail(f"papers folder {PAPERS} does not exist")
    papers = {path.name: " ".join(path.read_text().split()) for path in PAPERS.glob("*.txt")}
    assert len(papers) == 3
    references = citation["references"]
    assert [r["year"] for r in references] == [2017, 2002, 2010]
    for paper, reference in zip(
        ["anygram-kernels-sentiment.txt", "string-fisher-kernels-fsa.txt", "ordinal-feature-selection.txt"],
        references,
    ):
        text = papers[paper]
        assert reference["title"] in text, (paper, reference["title"])
        for author in reference["authors"]:
            assert author["family-names"] in text, (paper, author)


def test_conda_environment_matches_pyproject(pyproject):
    environment = yaml.safe_load((REPO_ROOT / "environment.yml").read_text())
    conda = [d for d in environment["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in environment["dependencies"] if isinstance(d, dict))
    python = next(d for d in conda if d.startswith("python="))
    minor = int(python.removeprefix("python=3."))
    assert pyproject["requires-python"] == ">=3.11,<3.14"
    assert 11 <= minor < 14
    wanted = pyproject["dependencies"] + pyproject["optional-dependencies"]["test"]
    assert sorted(p for p in pip if p != "-e .") == sorted(wanted)
    assert "-e ." in pip


@pytest.mark.parametrize("script", sorted((REPO_ROOT / "benchmarks").glob("*.py")), ids=lambda p: p.name)
def test_benchmark_scripts_import(script):
    """The benchmark scripts run only in the full profile; their imports must follow the package's layout."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"benchmark_{script.stem}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(getattr(module, "main", None))
