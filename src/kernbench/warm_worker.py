"""A warm worker: runs the workflow's ``kernbench`` commands in forks of one process that imported the libraries once.

A job of the workflow is one ``kernbench`` command in a new Python process, and on a small
run most of a job's time is importing numpy, pandas, scikit-learn, numba, TensorFlow or MLflow.
With the warm worker, Snakemake starts one server per run (:func:`start`, from the
workflow's ``onstart``) that imports those libraries once; the ``kernbench`` entry point
of each job then hands its arguments, environment, working directory and standard
streams to the server (:func:`kernbench.warm_client.delegate`), which forks a child to run the command and
reports its exit status back. The job's command, output files and log stay the same;
only the imports are shared.

The child's CPU time and peak resident memory come from ``wait4`` and are appended to the
worker's ledger (``<results_dir>/benchmarks/warm_worker.tsv``), since Snakemake's
benchmark file of the job sees only the small client process;
:func:`kernbench.report.costs.read_benchmarks` joins the two. The child's peak
memory includes the pages it shares with the server (the imported libraries).

Nothing here changes what a command computes: every job seeds its own random
generators from the config, and BLAS thread limits given in the job's environment
(``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``) are applied in the child with threadpoolctl,
since the libraries read them only when first loaded.
"""

from __future__ import annotations

import atexit
import importlib
import json
import logging
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kernbench.warm_client import MESSAGE_BYTES

log = logging.getLogger(__name__)


#: What every command loads, which the server loads before it serves any request: a module name, or
#: ``module:function`` for a function to call.
PRELOAD = (
    "numpy",
    "pandas",
    "pyarrow.parquet",
    "pyarrow.dataset",  # what pandas.read_parquet imports on its first call
    "pyarrow.pandas_compat",
    "pandas.core.arrays.arrow.extension_types",
    "kernbench.cli",
    "kernbench.cli:cached_parser",  # imports every command module
)

_SCIKIT_LEARN = (
    "scipy.stats",
    "sklearn.svm",
    "sklearn.linear_model",
    "sklearn.feature_extraction.text",
    "sklearn.model_selection",
    "sklearn.metrics",
    "kernbench.metrics",
)
_NUMBA = ("numba", "scipy.linalg.cython_blas", "kernbench.warm_worker:ready_numba")  # cython_blas: numba's BLAS
_ANYGRAM = (*_NUMBA, "kernbench.kernels.anygram", "kernbench.kernels.ngtk", "kernbench.papers.anygram.experiment")
_FISHER = (*_SCIKIT_LEARN, *_NUMBA, "kernbench.kernels.fisher", "kernbench.papers.fisher.experiment")
_REPORT = ("scipy.stats", "kernbench.report.tables", "tabulate", "kernbench.report.significance")
_PLOTS = ("kernbench.report.plotting:pyplot",)

#: What some commands load: the server loads an entry when the first command that needs it arrives, before
#: forking it, so that a run without such commands (a single target, a test) does not pay for it, and the
#: later ones find it loaded.
ON_DEMAND = {
    "prepare": ("kernbench.data.prepare",),  # the dev split's scikit-learn
    "baseline": (*_SCIKIT_LEARN, "kernbench.baselines"),
    "ordinal-run": (*_SCIKIT_LEARN, "kernbench.papers.ordinal.runner"),
    "ordinal-claims": _REPORT,
    "ordinal-sensitivity": (*_SCIKIT_LEARN, "kernbench.papers.ordinal.runner"),
    "fisher-features": _FISHER,
    "fisher-svm": _FISHER,
    "fisher-sensitivity": (*_FISHER, "kernbench.report.sensitivity"),
    "anygram-gram": _ANYGRAM,
    "anygram-gram-tile": _ANYGRAM,
    "anygram-gram-assemble": _ANYGRAM,
    "anygram-svm": (*_SCIKIT_LEARN, *_ANYGRAM, "kernbench.learners.svm"),
    "anygram-sensitivity": (*_SCIKIT_LEARN, *_ANYGRAM, "kernbench.learners.svm", "kernbench.report.sensitivity"),
    "lstm": ("tensorflow", "keras", "kernbench.metrics"),
    "lstm-sensitivity": ("scipy.stats", "kernbench.report.sensitivity"),
    "tables": _REPORT,
    "report-table": _REPORT,
    "significance": _REPORT,
    "significance-merge": _REPORT,
    "sensitivity": _REPORT,
    "figure": _PLOTS,
    "costs": ("tabulate",),
    "track": ("mlflow", "keras", *_PLOTS),
    "track-summaries": ("mlflow", *_PLOTS),
    "anygram-primal": (*_SCIKIT_LEARN, *_ANYGRAM),
}

#: The commands that need nothing beyond `PRELOAD` (or that no rule of the workflow runs): with `ON_DEMAND`
#: they name every command, so a new command gets its entries chosen rather than forgotten.
PRELOAD_ONLY = frozenset(
    {"fetch", "embeddings", "results-summary", "report-front", "report-results", "readme-results", "compare",
     "reference"}
)

#: Seconds :func:`start` waits for the server's socket.
START_TIMEOUT_S = 60.0

LEDGER_COLUMNS = ("log", "command", "pid", "start", "wall_s", "cpu_s", "max_rss_mb", "status")



def start(results_dir: str | os.PathLike) -> tuple[subprocess.Popen, str]:
    """Start a server for one workflow run; return the process and its socket path.

    The socket lives in a new temporary directory (a Unix socket path is limited to about
    100 bytes); the ledger is ``<results_dir>/benchmarks/warm_worker.tsv`` and the server's
    own messages go to ``<results_dir>/logs/warm_worker.log``. The server stops when
    :func:`stop` is called or when the process that started it ends.
    """
    directory = tempfile.mkdtemp(prefix="kernbench-worker-")
    path = os.path.join(directory, "socket")
    ledger = Path(results_dir) / "benchmarks" / "warm_worker.tsv"
    messages = Path(results_dir) / "logs" / "warm_worker.log"
    messages.parent.mkdir(parents=True, exist_ok=True)
    with open(messages, "a") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "kernbench.warm_worker", path, str(ledger), str(os.getpid())],
            stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
        )
    # Jobs started before the socket exists would run on their own; it is bound before any import.
    deadline = time.monotonic() + START_TIMEOUT_S
    while not os.path.exists(path) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not os.path.exists(path):
        log.warning("warm worker did not start (see %s); jobs run in their own processes", messages)
    return process, path


def stop(process: subprocess.Popen, socket_path: str) -> None:
    """Stop a server from :func:`start` (its running commands get SIGTERM) and remove its socket."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for path in (socket_path, os.path.dirname(socket_path)):
        try:
            os.rmdir(path) if os.path.isdir(path) else os.unlink(path)
        except OSError:
            pass


class _Server:
    """The serving loop: one forked child per request, their exits reported and written to the ledger."""

    def __init__(self, socket_path: str, ledger: Path, parent: int):
        self.ledger = ledger
        self.parent = parent
        self.selector = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(socket_path)
        self.listener.listen(64)
        self.selector.register(self.listener, selectors.EVENT_READ, None)
        self.children: dict[int, tuple] = {}  # pid -> (connection, pidfd, command, start, log path)
        self.stopping = False

    def serve(self) -> None:
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        for entry in PRELOAD:
            _import(entry)
        while not self.stopping or self.children:
            if os.getppid() != self.parent:
                self._stop()
            for key, _ in self.selector.select(1.0):
                if key.data is None:
                    try:
                        self._accept()
                    except OSError as exc:  # a client that ended while its request was read
                        log.warning("warm worker: request dropped (%s)", exc)
                elif key.data[0] == "exited":
                    self._reap(key.data[1])
                else:
                    self._client_gone(key.data[1])
        self.listener.close()

    def _stop(self, *_args) -> None:
        if self.stopping:
            return
        self.stopping = True
        self.selector.unregister(self.listener)  # no new commands; a waiting client finds the connection closed
        for pid in self.children:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def _accept(self) -> None:
        connection, _ = self.listener.accept()
        message, fds, _, _ = socket.recv_fds(connection, MESSAGE_BYTES, 3)
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            connection.close()
            return
        request = json.loads(message)
        command = request["argv"][0] if request["argv"] else ""
        for name in ON_DEMAND.get(command, ()):
            _import(name)
        log_path = _file_behind(fds[1])
        sys.stdout.flush()
        sys.stderr.flush()
        begun = time.time()
        pid = os.fork()
        if pid == 0:
            self._child(request, fds, connection)  # never returns
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        self.selector.register(pidfd, selectors.EVENT_READ, ("exited", pid))
        self.children[pid] = (connection, pidfd, command, begun, log_path)
        try:
            connection.send(json.dumps({"pid": pid}).encode())
        except OSError:  # the client ended while the command's libraries were imported
            os.kill(pid, signal.SIGKILL)
            return
        # The client sends nothing more: its end of the connection becomes readable only when it ends.
        self.selector.register(connection, selectors.EVENT_READ, ("client", pid))

    def _client_gone(self, pid: int) -> None:
        """The job's client process ended (killed, say) before its command: end the command too, as a child would."""
        connection = self.children[pid][0]
        self.selector.unregister(connection)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _child(self, request: dict, fds: list[int], connection: socket.socket) -> None:
        code = 1
        try:
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            connection.close()
            self.selector.close()
            self.listener.close()
            _end_with_parent()
            for other, pidfd, *_ in self.children.values():
                other.close()
                os.close(pidfd)
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, signal.SIG_DFL)
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            _apply_thread_limits(os.environ)
            sys.argv = ["kernbench", *request["argv"]]
            from kernbench.cli import main

            code = main(request["argv"])
        except SystemExit as exc:  # argparse's --help and usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # noqa: BLE001 - reported as the command's own traceback would be
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            try:
                atexit._run_exitfuncs()
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)

    def _reap(self, pid: int) -> None:
        connection, pidfd, command, begun, log_path = self.children.pop(pid)
        self.selector.unregister(pidfd)
        os.close(pidfd)
        if connection.fileno() in self.selector.get_map():
            self.selector.unregister(connection)
        _, status, usage = os.wait4(pid, 0)
        ended = time.time()
        try:
            # The row is written before the client hears the exit status, so that when the job has ended
            # its row is in the ledger for whatever reads it next (`kernbench costs`, a test).
            if log_path is not None:
                row = (log_path, command, pid, f"{begun:.3f}", f"{ended - begun:.3f}",
                       f"{usage.ru_utime + usage.ru_stime:.3f}", f"{usage.ru_maxrss / 1024:.1f}", status)
                _append_row(self.ledger, row)
        finally:
            try:
                connection.send(json.dumps({"status": status}).encode())
            except OSError:
                pass  # the client is gone (Snakemake killed the job)
            connection.close()


def load(entry: str) -> None:
    """Load one :data:`PRELOAD` or :data:`ON_DEMAND` entry here: import the module, and call the function of
    a ``module:function`` entry."""
    module_name, _, function = entry.partition(":")
    module = importlib.import_module(module_name)
    if function:
        getattr(module, function)()


def _import(entry: str) -> None:
    """:func:`load` an entry into the server, once; one that fails here fails in the job, with the job's own message."""
    if entry in _LOADED:
        return
    _LOADED.add(entry)
    try:
        load(entry)
    except Exception as exc:  # noqa: BLE001
        log.warning("warm worker: could not load %s (%s)", entry, exc)


_LOADED: set[str] = set()


def ready_numba() -> None:
    """Set up numba's typing and CPU target contexts, which every process otherwise does on its first jitted call."""
    import numba

    numba.njit(lambda x: x + 1)(1)


def _end_with_parent() -> None:
    """Have the kernel kill this process if the worker ends first, so that no job's command outlives its client."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def _file_behind(fd: int) -> str | None:
    """The absolute path of the regular file open as ``fd`` (a job's log), else None."""
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return target if os.path.isfile(target) else None


def _append_row(ledger: Path, row: tuple) -> None:
    ledger.parent.mkdir(parents=True, exist_ok=True)
    new = not ledger.exists()
    with open(ledger, "a") as handle:
        if new:
            handle.write("\t".join(LEDGER_COLUMNS) + "\n")
        handle.write("\t".join(str(v) for v in row) + "\n")


def _apply_thread_limits(environ) -> None:
    """Apply the job's BLAS / OpenMP thread limits, which the libraries read only when first loaded."""
    limits = {api: environ.get(name) for api, name in (("blas", "OPENBLAS_NUM_THREADS"), ("openmp", "OMP_NUM_THREADS"))}
    limits = {api: int(value) for api, value in limits.items() if value and value.isdigit()}
    if limits:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=limits)


def main(argv: list[str] | None = None) -> int:
    """``python -m kernbench.warm_worker SOCKET LEDGER PARENT_PID``: serve until stopped or the parent ends."""
    socket_path, ledger, parent = argv if argv is not None else sys.argv[1:]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    _Server(socket_path, Path(ledger), int(parent)).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
