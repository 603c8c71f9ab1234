"""The prange kernels' two builds: serial on one numba thread, parallel on more, each with its own cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# One process: the sm Gram of three token sentences on ``threads`` numba threads; prints its values, the build
# that ran and how that build came to be (compiled, or loaded from numba's cache).
_CALL = """
import json, sys
import numba, numpy as np
from kernbench.kernels import _anygram_dp as dp
numba.set_num_threads(int(sys.argv[1]))
tokens, offsets = np.array([1, 2, 3, 1, 2, 2, 3], np.int64), np.array([0, 3, 5, 7], np.int64)
pa, pb = (np.repeat(np.arange(3), 3), np.tile(np.arange(3), 3))
out = np.zeros(9)
dp.gram_sm(tokens, offsets, tokens, offsets, pa, pb, 0.5, out)
builds = {"serial": dp.gram_sm.serial, "parallel": dp.gram_sm.parallel}
ran = [name for name, build in builds.items() if build.signatures]
stats = builds[ran[0]].stats
print(json.dumps({"values": out.tolist(), "ran": ran, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


def _call(threads: int, cache_dir) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "NUMBA_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", _CALL, str(threads)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_one_thread_runs_the_serial_build_and_more_the_parallel_one_each_from_its_own_cache(tmp_path):
    first_serial, first_parallel = _call(1, tmp_path), _call(2, tmp_path)
    # The parallel build is compiled, not loaded from the serial build's cache files (nor the other way round).
    assert (first_serial["ran"], first_serial["misses"], first_serial["hits"]) == (["serial"], 1, 0)
    assert (first_parallel["ran"], first_parallel["misses"], first_parallel["hits"]) == (["parallel"], 1, 0)
    # A second process loads each build from its cache.
    again_serial, again_parallel = _call(1, tmp_path), _call(2, tmp_path)
    assert (again_serial["ran"], again_serial["hits"]) == (["serial"], 1)
    assert (again_parallel["ran"], again_parallel["hits"]) == (["parallel"], 1)
    # Same bits from both builds; k_sm(s, s) for s = (1, 2, 3) at lambda 1/2: three unigrams, two bigrams, a trigram.
    values = first_serial["values"]
    assert values == first_parallel["values"] == again_serial["values"] == again_parallel["values"]
    assert values[0] == 3 * 0.5 + 2 * 0.25 + 0.125
