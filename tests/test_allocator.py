"""The C allocator's heap pad: taken by glibc, not set where the C library has no ``mallopt``."""

from __future__ import annotations

import ctypes
import platform

from kernbench import allocator


def test_glibc_takes_the_heap_pad():
    assert platform.libc_ver()[0] == "glibc"  # the machines kernbench runs on (Linux with glibc)
    assert allocator.pad_heaps(allocator.LSTM_TOP_PAD) is True


def test_no_mallopt_means_no_pad(monkeypatch):
    class NoMallopt:
        def __init__(self, name):
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert allocator.pad_heaps(1 << 20) is False
