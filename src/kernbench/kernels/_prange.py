"""Jitted loops over ``numba.prange``, compiled for the number of numba threads the job runs with.

A job runs a ``prange`` loop on ``numba.get_num_threads()`` threads (``kernbench.runs`` sets it from the
job's ``threads``). With one thread, numba's parallel build runs the iterations in the same order as a plain
loop, gives the same bits and runs as fast, but its parfor passes make it compile in about twice the time.
The workflow's jobs run on one thread each (all but the throughput benchmark), and the first run after an
install compiles every kernel it calls; so a ``prange`` function has two builds from the same source,
parallel for several threads and serial for one, each compiled (or loaded from numba's cache) when a call
first takes it.
"""

from __future__ import annotations

import functools
import types

import numba


def prange_njit(func):
    """Jit a function whose outer loop is a ``numba.prange``: parallel for several threads, serial for one.

    Parameters
    ----------
    func : function
        The loop, as for ``numba.njit``; both builds are cached (``cache=True``).

    Returns
    -------
    callable
        Calls ``parallel`` (``njit(parallel=True)``) when ``numba.get_num_threads()`` is above 1 and
        ``serial`` (``njit``, where ``prange`` is ``range``) otherwise; both are attributes of it. It is
        called from Python, not from other jitted code.
    """
    parallel = numba.njit(cache=True, parallel=True)(func)
    # A copy under its own qualified name: numba names a function's cache files after it, and the two builds
    # would otherwise load each other's compiled code.
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    copy.__qualname__ = f"{func.__qualname__}_serial"
    serial = numba.njit(cache=True)(copy)

    @functools.wraps(func)
    def call(*args):
        return (parallel if numba.get_num_threads() > 1 else serial)(*args)

    call.parallel, call.serial = parallel, serial
    return call
