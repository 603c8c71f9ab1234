"""Kernel functions between sentences or documents, one module per kernel family.

Modules hold numerics only. Which function computes which system of a paper is the paper's
registry (:data:`kernbench.papers.anygram.systems.SYSTEMS` for the sentence kernels, as
``sklearn.metrics.pairwise`` keeps ``PAIRWISE_KERNEL_FUNCTIONS``); each family's variants
(``sm``, ``west``, ``wess``) are arguments of its functions, and the any-gram kernel's exact fast
paths are :data:`kernbench.kernels.anygram.FAST_PATHS`.
"""

from __future__ import annotations

#: Rows of one block of the GEMM in the ``wess`` fast path (:mod:`kernbench.kernels.anygram`). A tiled Gram's
#: row tiles are multiples of it, so that every product is computed as in the one-block Gram. It lives here so
#: that planning a run does not load the jitted module.
WESS_ROW_BLOCK = 256
