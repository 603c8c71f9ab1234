"""The layers of kernbench: no import cycle, no paper imported by a lower layer, no state changed on import.

The lower layers are the data, kernels and learners packages, the metrics and the catalog modules; the papers
(``kernbench.papers``) sit above them and pass down what the lower layers need (the catalog's task -> paper
map, the datasets). Imports are read from the source (every ``import`` statement, at module level or inside
a function), so an import deferred into a function counts as one.
"""

from __future__ import annotations

import ast
import graphlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "src" / "kernbench"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
LOWER = sorted(
    name
    for name in MODULES
    if name.split(".")[1:2] in (["data"], ["kernels"], ["learners"])
    or name in ("kernbench.metrics", "kernbench.catalog", "kernbench.catalog_config")
)


def imported_modules(name: str) -> set[str]:
    """The modules of kernbench that module ``name`` imports anywhere in its source."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}  # `from package import module`
    return {m for m in found if m in MODULES and m != name}


def test_the_import_reader_sees_function_level_and_relative_imports(tmp_path, monkeypatch):
    source = (
        "from . import registry\n\ndef f():\n    from kernbench.papers import PAPERS\n    import kernbench.metrics\n"
    )
    module = tmp_path / "kernbench" / "data" / "probe.py"
    module.parent.mkdir(parents=True)
    module.write_text(source)
    monkeypatch.setitem(MODULES, "kernbench.data.probe", module)
    assert imported_modules("kernbench.data.probe") == {
        "kernbench.data", "kernbench.data.registry", "kernbench.papers", "kernbench.metrics"
    }


def test_the_lower_layers_are_found():
    assert {"kernbench.catalog", "kernbench.catalog_config", "kernbench.data.registry", "kernbench.data.prepare",
            "kernbench.metrics", "kernbench.kernels.fisher", "kernbench.learners.svm"} <= set(LOWER)


@pytest.mark.parametrize("name", LOWER)
def test_no_lower_layer_module_imports_a_paper(name):
    papers = sorted(m for m in imported_modules(name) if m == "kernbench.papers" or m.startswith("kernbench.papers."))
    assert not papers, f"{name} imports {papers}"


def test_the_modules_of_kernbench_form_no_import_cycle():
    graph = {name: imported_modules(name) for name in MODULES}
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")


def test_importing_the_lower_layers_loads_no_paper_and_reads_no_catalog():
    """In a fresh interpreter with a catalog variable no workflow wrote: importing reads it not, calling does."""
    script = f"""
import importlib, json, sys
loaded = {{}}
for name in {LOWER!r}:
    importlib.import_module(name)
    loaded[name] = sorted(m for m in sys.modules if m.startswith("kernbench.papers"))
from kernbench.catalog import catalog
from kernbench.config_check import ConfigError
try:
    catalog()
    called = "read nothing"
except ConfigError as exc:
    called = str(exc)
print(json.dumps({{"loaded": loaded, "called": called}}))
"""
    env = {"PATH": "/usr/bin:/bin", "KERNBENCH_CATALOG": "not what the workflow writes"}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=REPO_ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert {name: papers for name, papers in result["loaded"].items() if papers} == {}
    assert result["called"].startswith("environment variable KERNBENCH_CATALOG is not a catalog the workflow wrote")
