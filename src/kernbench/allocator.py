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
    """Let glibc's malloc keep ``nbytes`` free at the top of each heap instead of returning them.

    A TensorFlow training step allocates its tensors from a thread's heap and frees them at the step's
    end; with glibc's default pad the heap then shrinks, and the next step's tensors touch fresh pages
    again (on the SST BiLSTM, 15 million page faults and 23 s of system time in two epochs). With a pad
    the pages stay in the heap. Memory a process no longer uses is then kept, not returned: the pad
    bounds how much.

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
