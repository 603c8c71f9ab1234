"""The kernel systems of Table 3 (Kaljahi & Foster): the one list of their names and what each is.

:data:`SYSTEMS` is to this paper's kernels what ``PAIRWISE_KERNEL_FUNCTIONS`` is to
``sklearn.metrics.pairwise``: every name a config, a command or the workflow may give is a key of
it, and everything that depends on a system (its kernel setting's name, the workflow's wildcard
pattern, the commands' choices, the encoding keys its Gram matrices depend on, its primal form,
the config lists that may name it) is read from its :class:`KernelSystem`, never from its name.

A new kernel is its Gram and self-similarity functions and one :func:`register` call here (plus its
published values in ``workflow/paper_results.yaml`` and, to run it by default, its name in a
config list of ``config.yaml``). Functions are named as ``"module:function"`` (or given as
callables) and imported only when a job computes them, so reading the registry stays cheap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Parameters a kernel setting may have, in the order its name writes them.
PARAMETERS = ("lam", "theta")
#: The config's system lists: ``anygram.<group>_systems``, run on ``anygram.<group>_datasets``.
GROUPS = ("agk", "ngtk")
#: Keys of the ``anygram`` config that a system's Gram matrices may depend on.
ENCODING_KEYS = ("split_contractions", "identical_match", "aspect_bit")
#: What a system name may look like (it starts the kernel setting's name, ``<system>_lam0.4``).
NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")


@dataclass(frozen=True)
class KernelSystem:
    """One kernel system of Table 3 and everything the code needs to know of it.

    Attributes
    ----------
    name : str
        The name in the table, the config lists and the kernel setting's name.
    family : str
        The kernel it is a variant of (``"agk"``, ``"ngtk"``, ...).
    variant : str or None
        The ``variant`` keyword its functions take (``"sm"``, ``"west"``, ``"wess"``); None: none.
    gram : str or callable
        ``"module:function"``: ``gram(X, Y=None, **kw)``, the ``len(X) x len(Y)`` matrix
        (``Y=None``: ``X`` against itself, symmetric).
    diag : str or callable
        ``"module:function"``: ``diag(X, **kw)``, the self-similarities ``K(x, x)``.
    inputs : str or callable
        ``"module:function"`` turning a prepared dataset's splits into the functions' arguments
        (see :func:`kernbench.papers.anygram.inputs.token_ids`, the default).
    group : str
        One of :data:`GROUPS`: the config list that names it (``anygram.<group>_systems``) and the
        datasets it runs on (``anygram.<group>_datasets``).
    params : tuple of str
        Its parameters among :data:`PARAMETERS`: ``lam`` (the config's decay), ``theta`` (a
        threshold chosen on dev over the config's grid, one Gram job each).
    encoding : tuple of str
        The keys of :data:`ENCODING_KEYS` its Gram matrices depend on (they key its cache).
    primal : str or callable or None
        ``"module:function"`` of its explicit feature map, ``primal(X, **kw)`` (a sparse matrix
        whose inner products are the kernel), for ``anygram.training: primal``; None: none.
    casing : bool
        Whether its Gram matrices depend on ``anygram.lowercase_sm`` (string match on lower-cased
        tokens or as written).
    """

    name: str
    family: str
    variant: str | None
    gram: object
    diag: object
    group: str
    inputs: object = "kernbench.papers.anygram.inputs:token_ids"
    params: tuple[str, ...] = ("lam",)
    encoding: tuple[str, ...] = ("split_contractions",)
    primal: object = None
    casing: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not NAME.fullmatch(self.name):
            raise ValueError(f"kernel system name {self.name!r}: letters and digits, starting with a letter")
        if self.group not in GROUPS:
            raise ValueError(f"kernel system {self.name}: group {self.group!r} is not one of {', '.join(GROUPS)}")
        for field, values, known in (("params", self.params, PARAMETERS), ("encoding", self.encoding, ENCODING_KEYS)):
            unknown = [v for v in values if v not in known]
            if unknown:
                raise ValueError(f"kernel system {self.name}: {field} {unknown} not among {', '.join(known)}")

    @property
    def uses_theta(self) -> bool:
        """Whether it has a similarity threshold to choose on dev."""
        return "theta" in self.params


#: name -> :class:`KernelSystem`, in the order of the paper's table.
SYSTEMS: dict[str, KernelSystem] = {}


def register(system: KernelSystem) -> KernelSystem:
    """Add a kernel system to :data:`SYSTEMS`.

    Parameters
    ----------
    system : KernelSystem

    Returns
    -------
    KernelSystem
        ``system``.

    Raises
    ------
    ValueError
        If a system of that name is registered already.
    """
    if system.name in SYSTEMS:
        raise ValueError(f"a kernel system named {system.name!r} is registered already")
    SYSTEMS[system.name] = system
    return system


def get(name: str) -> KernelSystem:
    """The registered system called ``name``.

    Raises
    ------
    ValueError
        If no system of that name is registered.
    """
    try:
        return SYSTEMS[name]
    except KeyError:
        raise ValueError(f"unknown any-gram kernel system {name!r} (one of {', '.join(SYSTEMS)})") from None


def names(predicate=None) -> list[str]:
    """Names of the registered systems (those for which ``predicate(system)`` holds), in table order."""
    return [name for name, system in SYSTEMS.items() if predicate is None or predicate(system)]


class Choices:
    """The names of the registered systems for which ``predicate`` holds, read each time they are asked for.

    A command's ``choices=``: a parser built once per process still takes a system registered after it.
    """

    def __init__(self, predicate=None):
        self.predicate = predicate

    def __iter__(self):
        return iter(names(self.predicate))

    def __contains__(self, name) -> bool:
        return name in names(self.predicate)


def function(reference):
    """The callable a ``"module:function"`` reference names (a callable is returned as it is)."""
    from kernbench.paper import resolve

    return reference if callable(reference) else resolve(reference)


def kernel_encoding(name: str, cfg: dict) -> dict:
    """The encoding keys of the ``anygram`` config ``cfg`` that a system's Gram matrices depend on."""
    return {key: cfg[key] for key in get(name).encoding}


#: The config's lists of system names -> which registered systems each may name. The sensitivity rows
#: run on ``anygram.agk_datasets``, so their lists take the systems of that group.
CONFIG_LISTS = {
    "anygram.agk_systems": lambda s: s.group == "agk",
    "anygram.ngtk_systems": lambda s: s.group == "ngtk",
    "anygram.sensitivity.lam_systems": lambda s: s.group == "agk" and "lam" in s.params and not s.uses_theta,
    "anygram.sensitivity.dev_split_systems": lambda s: s.group == "agk",
    "anygram.sensitivity.split_contractions_systems": lambda s: s.group == "agk" and "split_contractions" in s.encoding,
    "anygram.sensitivity.identical_match_systems": lambda s: s.group == "agk" and "identical_match" in s.encoding,
    "anygram.sensitivity.aspect_bit_systems": lambda s: s.group == "agk" and "aspect_bit" in s.encoding,
}


def config_names() -> dict[str, list[str]]:
    """``{config key: valid system names}`` of every config list of :data:`CONFIG_LISTS`."""
    return {key: names(predicate) for key, predicate in CONFIG_LISTS.items()}


def _anygram(name: str, variant: str, **fields) -> KernelSystem:
    return KernelSystem(
        name, "agk", variant, "kernbench.kernels.anygram:anygram_gram", "kernbench.kernels.anygram:anygram_diag",
        group="agk", inputs="kernbench.papers.anygram.inputs:anygram_inputs", **fields,
    )  # fmt: skip


def _ngtk(name: str, variant: str, **fields) -> KernelSystem:
    return KernelSystem(
        name, "ngtk", variant, "kernbench.kernels.ngtk:ngtk_gram", "kernbench.kernels.ngtk:ngtk_diag",
        group="ngtk", inputs="kernbench.papers.anygram.inputs:ngtk_inputs", **fields,
    )  # fmt: skip


# String match on token ids (lower-cased or as written, aspect tokens as distinct ``_AT`` tokens); ``west``
# matches two tokens whose cosine reaches theta; ``wess`` weighs every pair by its cosine. NGTK marks aspects
# by a leaf, so neither NGTK system depends on the aspect bit.
_FEATURES = "kernbench.kernels.anygram_features:anygram_features"
register(_anygram("AGKsm", "sm", primal=_FEATURES, casing=True))
register(_anygram("AGKwest", "west", params=("lam", "theta"), encoding=ENCODING_KEYS))
register(_anygram("AGKwess", "wess", encoding=ENCODING_KEYS, primal=_FEATURES))
register(_ngtk("NGTKsm", "sm"))
register(_ngtk("NGTKwest", "west", params=("lam", "theta"), encoding=("split_contractions", "identical_match")))
