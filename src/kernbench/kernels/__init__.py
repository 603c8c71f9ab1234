"""Kernel functions between sentences or documents, one module per kernel family.

:data:`KERNEL_FUNCTIONS` names the Gram and self-similarity functions of each family
of sentence kernels, as ``sklearn.metrics.pairwise`` keeps ``PAIRWISE_KERNEL_FUNCTIONS``;
:func:`kernel_functions` imports them (the jitted modules load only when asked for).
Each family's variants (``sm``, ``west``, ``wess``) are arguments of its functions, and
the any-gram kernel's exact fast paths are :data:`kernbench.kernels.anygram.FAST_PATHS`.
"""

from __future__ import annotations

#: Rows of one block of the GEMM in the ``wess`` fast path (:mod:`kernbench.kernels.anygram`). A tiled Gram's
#: row tiles are multiples of it, so that every product is computed as in the one-block Gram. It lives here so
#: that planning a run does not load the jitted module.
WESS_ROW_BLOCK = 256

#: family -> (Gram function, self-similarity function), as ``"module:function"``.
KERNEL_FUNCTIONS = {
    "agk": ("kernbench.kernels.anygram:anygram_gram", "kernbench.kernels.anygram:anygram_diag"),
    "ngtk": ("kernbench.kernels.ngtk:ngtk_gram", "kernbench.kernels.ngtk:ngtk_diag"),
}


def kernel_functions(family: str):
    """The ``(gram, diag)`` functions of a kernel family of :data:`KERNEL_FUNCTIONS`.

    Raises
    ------
    ValueError
        If ``family`` is not one of :data:`KERNEL_FUNCTIONS`.
    """
    from kernbench.paper import resolve

    if family not in KERNEL_FUNCTIONS:
        raise ValueError(f"unknown kernel family {family!r} (one of {', '.join(KERNEL_FUNCTIONS)})")
    gram, diag = KERNEL_FUNCTIONS[family]
    return resolve(gram), resolve(diag)
