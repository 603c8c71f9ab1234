"""Shared pytest fixtures."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from kernbench.records import make_record

REPO_ROOT = Path(__file__).resolve().parents[1]


def _reads_smoke_run(item) -> bool:
    return "smoke_run" in getattr(item, "fixturenames", ())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Put every test of the shared smoke run (:func:`smoke_run`) in one pytest-xdist group, first, then the other
    ``slow`` tests, then the rest.

    Session fixtures are made once per worker; with ``--dist loadgroup`` the group's tests all
    go to one worker, so the smoke run is made once. Collected first, the group starts at once
    while the other workers take the slow tests; the many short ones come last and keep every
    worker busy to the end. ``tryfirst``: xdist reads the group marks in its own hook of this name.
    """
    for item in items:
        if _reads_smoke_run(item):
            item.add_marker(pytest.mark.xdist_group("smoke_run"))
    # A stable sort: each part keeps the order of collection.
    items.sort(key=lambda item: 0 if _reads_smoke_run(item) else 1 if item.get_closest_marker("slow") else 2)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Fail a test of an xdist group that pytest-xdist did not group: a smoke-run test's worker would make the
    smoke run again, and a test of Snakemake's locks would run beside another."""
    grouping = os.environ.get("PYTEST_XDIST_WORKER") and item.config.getvalue("loadgroup")
    if grouping and item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
        pytest.fail(
            f"pytest-xdist did not group {item.nodeid} with the other tests of its group: this pytest "
            f"({pytest.__version__}) and pytest-xdist do not work together (see pyproject.toml)", pytrace=False
        )


@pytest.fixture(scope="session")
def mirror() -> Path:
    """Directory holding the raw corpora (``KERNBENCH_MIRROR`` or ``../shared/data``).

    The tests check exact counts on the real data, so a missing mirror is a
    failure, not a reason to skip.
    """
    path = Path(os.environ.get("KERNBENCH_MIRROR", REPO_ROOT.parent / "shared" / "data"))
    if not path.is_dir():
        pytest.fail(f"data mirror {path} does not exist; set KERNBENCH_MIRROR to the raw data directory")
    return path


#: Snakemake on this checkout, without Snakemake's locks. The suite runs workflows side by side in this
#: checkout, each into its own results_dir, which the workflow claims for itself
#: (:func:`kernbench.workflow_lock.claim_results_dir`). Snakemake's locks are one directory per checkout,
#: and a run that ends removes all of it, other runs' locks included, while a run starting beside it may be
#: reading or writing its own there (``snakemake/persistence/file.py``): that run fails at start-up.
#: It keeps Snakemake's default job rate limiter of 1 s: with the default profile's 5 s (profiles/default/config.yaml)
#: every run waits about 5 s for the limiter's timers after its last job, which the suite's many short runs add up.
SNAKEMAKE = (sys.executable, "-m", "snakemake", "--nolock", "--max-jobs-per-timespan", "100/1s")
#: Snakemake with its locks, as a user runs it (the rate limiter as above): for the tests of the locks, which run one
#: after another (the ``snakemake_locks`` xdist group) while every other run in the suite leaves the lock directory
#: alone.
SNAKEMAKE_WITH_LOCKS = (sys.executable, "-m", "snakemake", "--max-jobs-per-timespan", "100/1s")


def run_snakemake(command, **kwargs):
    """``subprocess.run`` of a Snakemake command (:data:`SNAKEMAKE`) with its output captured as text."""
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory):
    """One finished smoke-profile run, shared by the end-to-end tests: ``(results_dir, completed process)``.

    By default the suite makes it, from scratch, with more jobs than the machine's two cores
    (``--cores 3``), so that the jobs of every paper meet under load, in another order than the README's
    ``--cores 2``; three job slots cost less CPU than four (0.94 of it in paired smoke runs). The tests that
    use it read the run; those that rerun Snakemake on it leave its tables as they are.

    ``KERNBENCH_SMOKE_RUN`` names a smoke run already made from scratch on this checkout instead
    (:func:`finished_smoke_run`): ``.ci/run`` passes the one the README's first command made.
    """
    given = os.environ.get("KERNBENCH_SMOKE_RUN")
    if given:
        return finished_smoke_run(Path(given))
    results = tmp_path_factory.mktemp("smoke") / "results"
    run = run_snakemake(
        [*SNAKEMAKE, "--cores", "3", "--config", "profile=smoke", f"results_dir={results}"],
        cwd=REPO_ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return results, run


def finished_smoke_run(run_dir: Path) -> tuple[Path, subprocess.CompletedProcess]:
    """A smoke run made outside the suite: ``run_dir/results`` (its results_dir) and its Snakemake
    command's terminal output, ``run_dir/snakemake.stdout`` and ``run_dir/snakemake.stderr``.

    Fails, naming the file, when one of them or the run's ``results.md`` (its last table step) is missing.
    """
    results = run_dir / "results"
    stdout, stderr = run_dir / "snakemake.stdout", run_dir / "snakemake.stderr"
    missing = [str(path) for path in (results / "results.md", stdout, stderr) if not path.is_file()]
    if missing:
        pytest.fail(f"KERNBENCH_SMOKE_RUN={run_dir} is not a finished smoke run: no {', no '.join(missing)}")
    return results, subprocess.CompletedProcess(
        args=f"snakemake run into {results}", returncode=0, stdout=stdout.read_text(), stderr=stderr.read_text()
    )


@pytest.fixture(scope="session")
def laptop(mirror):
    """The prepared SemEval-2014 laptop set (seeded 10 % dev split)."""
    from kernbench.data import semeval14

    return semeval14.prepare(
        mirror / "semeval14/Laptop_Train_v2.xml", mirror / "semeval14/Laptops_Test_Gold.xml", dev_fraction=0.1, seed=1
    )


def glove_for(frame):
    """GloVe 6B 50d cut to the (lower-cased) tokens of a prepared frame: ``(vocabulary, matrix)``."""
    from kernbench.data import embeddings

    words, vectors = embeddings.load_glove_6b_50d()
    tokens = [t for toks in frame["tokens"] for t in toks]
    vocabulary, matrix, _ = embeddings.cut_to_vocabulary(tokens, words, vectors, cased=False)
    return vocabulary, matrix


def write_record(
    path: Path,
    *,
    paper: str,
    dataset: str,
    system: str,
    rows: list[dict],
    key_params: dict | None = None,
    params: dict | None = None,
    curves: dict | None = None,
    timings: dict | None = None,
    predictions: str | Path = "",
    artifacts: list | None = None,
    provenance: dict | None = None,
    table: str | None = None,
    grid_choices: dict | None = None,
) -> Path:
    """Write the run record an experiment job would write, built by :func:`kernbench.records.make_record`.

    ``run_key`` and ``metrics`` are derived from the arguments as the jobs derive
    them; only ``provenance`` is the one given, so the record does not depend on
    the checkout, the machine or the clock.

    Parameters
    ----------
    path : pathlib.Path
        File to write the record to (JSON).
    paper, dataset, system : str
        What was run.
    rows : list of dict
        Table rows ``{"dataset", "split", "metric", "value"}`` (plus extra keys such as ``xi``).
    key_params : dict, optional
        The parameters that make the run key; none by default.
    params : dict, optional
        The recorded parameters; ``key_params`` by default.
    curves : dict, optional
        Per-step metrics; none by default.
    timings : dict, optional
        Seconds per phase; none by default.
    predictions : str or pathlib.Path, optional
        Path of the per-item predictions; ``""`` (none) by default.
    artifacts : list, optional
        Further files or directories to attach.
    provenance : dict, optional
        The record's provenance; empty by default.
    table : str, optional
        The table the run belongs to; the paper's by default.
    grid_choices : dict, optional
        Values chosen from a grid (:func:`kernbench.runs.grid_choice`); none by default.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    key_params = {} if key_params is None else key_params
    record = make_record(
        paper=paper,
        dataset=dataset,
        system=system,
        key_params=key_params,
        params=key_params if params is None else params,
        rows=rows,
        timings=timings or {},
        predictions=predictions,
        threads=1,
        curves=curves,
        artifacts=artifacts,
        table=table,
        grid_choices=grid_choices,
    )
    record["provenance"] = provenance or {}
    path.write_text(json.dumps(record))
    return path


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class MlflowServer:
    """``mlflow server`` on 127.0.0.1: a sqlite store and the artifacts under ``root``; killed and started again on
    the same port and store."""

    def __init__(self, root: Path):
        self.root = root
        self.base = f"http://127.0.0.1:{free_port()}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        port = self.base.rsplit(":", 1)[1]
        self.process = subprocess.Popen(
            [Path(sys.executable).parent / "mlflow", "server", "--host", "127.0.0.1", "--port", port,
             "--backend-store-uri", f"sqlite:///{self.root / 'server.db'}",
             "--artifacts-destination", str(self.root / "server-artifacts"), "--workers", "1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            # Without MLflow's job runner (its GenAI jobs, which kernbench has none of): it starts eight more
            # processes, each importing MLflow, about 19 s of CPU at every start.
            env={**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"},
        )
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/health", timeout=2):
                    return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.kill()
                    raise AssertionError("mlflow server did not come up")
                time.sleep(0.5)

    def kill(self) -> None:
        """SIGKILL to the server and its workers, as when its machine or container goes down."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        self.process = None


@pytest.fixture
def mlflow_server(tmp_path):
    """An :class:`MlflowServer` on a store under ``tmp_path``, started; killed at the end of the test."""
    server = MlflowServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()
