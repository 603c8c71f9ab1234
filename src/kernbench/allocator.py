"""The C allocator's setting for processes that allocate and free large buffers at every step."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

#: ``mallopt`` parameter of glibc: the bytes a heap keeps free at its top when it grows or is trimmed.
M_TOP_PAD = -2

#: The top pad the LSTM jobs set (:func:`pad_heaps`).
LSTM_TOP_PAD = 256 << 20


def pad_heaps(nbytes: int) -> bool:
    """Let glibc's malloc keep ``nbytes`` free at the top of each heap when it grows or trims one.

    TensorFlow allocates a training step's tensors and frees them at the step's end. With glibc's default
    pad, memory freed that way goes back to the system and the next step faults it in again: two epochs of
    the SST BiLSTM (``BlockLSTM``, one thread) made 15 million page faults and spent 23 s in the kernel,
    against 0.16 million and 1 s with a 256 MiB pad (``MALLOC_TOP_PAD_`` in the environment has the same
    effect). The memory kept is bounded by the pad per heap.

    Parameters
    ----------
    nbytes : int
        The pad, in bytes.

    Returns
    -------
    bool
        Whether the setting took: False where the C library is not glibc (no ``mallopt``).
    """
    if not sys.platform.startswith("linux"):
        return False
    mallopt = getattr(ctypes.CDLL(ctypes.util.find_library("c")), "mallopt", None)
    return mallopt is not None and mallopt(M_TOP_PAD, nbytes) == 1
