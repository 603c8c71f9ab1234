"""A prepared dataset's splits as the arguments of a kernel system's Gram and self-similarity functions.

Each :class:`kernbench.papers.anygram.systems.KernelSystem` names one of these builders (its
``inputs``). A builder is called with the prepared rows of every split and the token encoder, and
returns the items of each split, the keyword arguments of every call, and the per-item keyword
arguments (aspect masks, identity ids) that follow the items into each call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernbench.errors import DataError


@dataclass
class KernelInputs:
    """The arguments of a kernel system's functions over the splits of one dataset.

    Attributes
    ----------
    data : dict
        ``{split: items}``: the ``X`` (and ``Y``) of the functions.
    kw : dict
        Keyword arguments of every call (``variant``, ``lam``, ``theta``, vectors, ...).
    per_item : dict
        ``{split: {keyword: values}}``: one value per item, passed as ``keyword`` with ``X``;
        sliced with the rows of ``X``.
    y_keywords : dict
        ``{keyword: keyword}``: the name the same values take with ``Y`` (``aspect_x`` -> ``aspect_y``).
    """

    data: dict
    kw: dict
    per_item: dict = field(default_factory=dict)
    y_keywords: dict = field(default_factory=dict)


def parameters(system, lam, theta) -> dict:
    """The keyword arguments of a system's own settings: its ``variant`` and the parameters it declares."""
    values = {"lam": lam, "theta": theta}
    kw = {} if system.variant is None else {"variant": system.variant}
    return {**kw, **{p: values[p] for p in system.params}}


def token_ids(parts: dict, encoder, *, system, lam, theta=None, lowercase_sm: bool = True) -> KernelInputs:
    """Sentences as arrays of token ids (:meth:`TokenEncoder.ids`, the embeddings' casing), and the system's settings.

    Parameters
    ----------
    parts : dict
        ``{split: prepared rows}`` (a ``tokens`` column).
    encoder : kernbench.kernels.anygram_encoding.TokenEncoder
    system : kernbench.papers.anygram.systems.KernelSystem
    lam, theta : float or None
        The kernel setting's parameters (those the system declares are passed on).
    lowercase_sm : bool, optional
        Unused: token ids keep the embeddings' casing.

    Returns
    -------
    KernelInputs
    """
    data = {s: [encoder.ids(t) for t in p["tokens"]] for s, p in parts.items()}
    return KernelInputs(data, parameters(system, lam, theta))


def anygram_inputs(parts: dict, encoder, *, system, lam, theta=None, lowercase_sm: bool = True) -> KernelInputs:
    """Inputs of the any-gram kernels (:func:`kernbench.kernels.anygram.anygram_gram`).

    String match takes token ids (``lowercase_sm``: lower-cased), the embedding variants one
    ``(L, d)`` vector array per sentence; on SemEval aspect tokens are marked as
    :meth:`TokenEncoder.encode` says (``_AT`` ids, or one more vector dimension). With
    ``identical_match`` the embedding variants also take the tokens' identity ids.

    Parameters are those of :func:`token_ids`.
    """
    aspects = "aspect_mask" in parts["train"]
    masks = {s: list(p["aspect_mask"]) if aspects else None for s, p in parts.items()}
    data = {
        s: encoder.encode(list(p["tokens"]), variant=system.variant, aspect_masks=masks[s], lowercase_sm=lowercase_sm)
        for s, p in parts.items()
    }
    per_item = {}
    if system.variant != "sm" and encoder.encoding.identical_match:
        per_item = {s: {"identity": encoder.identity(list(p["tokens"]), masks[s])} for s, p in parts.items()}
    return KernelInputs(data, parameters(system, lam, theta), per_item, {"identity": "identity_y"})


def ngtk_inputs(parts: dict, encoder, *, system, lam, theta=None, lowercase_sm: bool = True) -> KernelInputs:
    """Inputs of NGTK (:func:`kernbench.kernels.ngtk.ngtk_gram`): token ids, aspect masks and the word vectors.

    Parameters are those of :func:`token_ids`.

    Raises
    ------
    DataError
        If the dataset has no aspect terms (an ``aspect_mask`` column, SemEval only).
    """
    if "aspect_mask" not in parts["train"]:
        raise DataError("NGTK systems need the aspect terms of the SemEval datasets (`aspect_mask` column)")
    inputs = token_ids(parts, encoder, system=system, lam=lam, theta=theta)
    # words without a vector got ids past the embeddings' rows: zero vectors for them
    oov = np.zeros((len(encoder.index) - encoder.vectors.shape[0], encoder.vectors.shape[1]))
    inputs.kw["vectors"] = np.vstack([encoder.vectors, oov])
    if system.variant == "west":
        inputs.kw["identical"] = encoder.encoding.identical_match
    inputs.per_item = {s: {"aspect_x": list(p["aspect_mask"])} for s, p in parts.items()}
    inputs.y_keywords = {"aspect_x": "aspect_y"}
    return inputs
