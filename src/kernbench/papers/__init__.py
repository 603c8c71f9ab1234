"""The re-run papers, one package each: experiment, commands, figures and run planning.

:data:`PAPERS` is what the generic layers read; none of them names a paper.
"""

from kernbench.papers import anygram, fisher, ordinal

#: Every paper by its key, in the order of the report and ``results.md``.
PAPERS = {paper.name: paper for paper in (anygram.PAPER, fisher.PAPER, ordinal.PAPER)}
