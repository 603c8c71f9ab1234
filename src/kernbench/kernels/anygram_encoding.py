"""Prepared tokens to kernel inputs: token ids, per-sentence token vectors, aspect-term marking.

Tokens are looked up with :func:`kernbench.data.embeddings.lookup_key` in the
embeddings' ``words``, lower-cased or not as the embeddings file states; the
row number is the token id. String match (``sm``) may be told to match tokens
lower-cased whatever the vectors' casedness (``lowercase_sm``). A token missing from
``words`` gets a fresh id (and a zero vector, cosine 0 with everything), the
same id on every call of one :class:`TokenEncoder`.

Aspect terms (SemEval, Section 5.2 of the paper): under string match an aspect
token ``w`` becomes the distinct token ``w_AT``; under the embedding variants
each token vector gains one dimension, 1 on aspect tokens and 0 elsewhere.

:class:`Encoding` holds the choices the paper leaves open: whether contractions
are split as GloVe's tokeniser splits them, whether identical tokens always
match, and whether the aspect bit is appended to the raw or the unit-length
word vector.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from kernbench.data.embeddings import load_embeddings, lookup_key

ASPECT_SUFFIX = "_AT"

#: Readings of "a 1 is added to the end of its word vector" (Section 5.2): appended to the raw
#: vector, or to the vector scaled to unit length (the bit then weighs as much as the word).
ASPECT_BITS = ("raw", "unit")


@dataclass(frozen=True)
class Encoding:
    """Tokenisation and matching choices of the kernel inputs (config ``anygram``).

    Attributes
    ----------
    split_contractions : bool
        Split contractions as GloVe's PTB tokeniser does (``don't`` -> ``do n't``,
        :func:`kernbench.data.semeval14.split_contractions`) before the lookup.
    identical_match : bool
        ``west``/``wess`` (and NGTK ``west``): identical tokens (same lookup key, same aspect marking) always
        match, with similarity 1, also when the word has no vector; without it an unknown word matches nothing.
    aspect_bit : {"raw", "unit"}
        Append the aspect bit to the raw word vector or to the word vector scaled to unit length.
    """

    split_contractions: bool = False
    identical_match: bool = False
    aspect_bit: str = "raw"

    def __post_init__(self):
        if self.aspect_bit not in ASPECT_BITS:
            raise ValueError(f"anygram.aspect_bit must be one of {', '.join(ASPECT_BITS)}, got {self.aspect_bit!r}")

    @classmethod
    def from_config(cls, cfg: dict) -> "Encoding":
        """The encoding of an ``anygram`` config section (or of a dict holding some of its keys)."""
        return cls(**{k: cfg[k] for k in asdict(cls()) if k in cfg})

    def as_dict(self) -> dict:
        """The choices as a plain dict (for records and job settings)."""
        return asdict(self)


def split_frame(frame):
    """A prepared frame with contractions split in ``tokens`` (and ``aspect_mask`` stretched to match)."""
    from kernbench.data.semeval14 import split_contractions

    frame = frame.copy()
    masks = frame["aspect_mask"] if "aspect_mask" in frame else [None] * len(frame)
    pairs = [split_contractions(list(t), None if m is None else list(m)) for t, m in zip(frame["tokens"], masks)]
    frame["tokens"] = [t for t, _ in pairs]
    if "aspect_mask" in frame:
        frame["aspect_mask"] = [m for _, m in pairs]
    return frame


class TokenEncoder:
    """Map prepared tokens to ids and vectors of one embeddings file.

    Parameters
    ----------
    words : sequence of str
        Lookup keys, one per row of ``vectors``.
    vectors : ndarray of shape (V, d)
        Token vectors.
    cased : bool
        Whether ``words`` keep case (then tokens are looked up as written, else lower-cased).
    encoding : Encoding, optional
        Choices applied by :meth:`encode` and :meth:`identity` (default: none of them).
    """

    def __init__(self, words, vectors, *, cased: bool, encoding: Encoding | None = None):
        self.cased = bool(cased)
        self.encoding = encoding or Encoding()
        self.vectors = np.asarray(vectors, dtype=np.float64)
        self.index = {str(w): i for i, w in enumerate(words)}
        if len(self.index) != self.vectors.shape[0]:
            raise ValueError(f"{len(self.index)} distinct words for {self.vectors.shape[0]} vectors")

    @classmethod
    def from_npz(cls, path: str | Path, encoding: Encoding | None = None) -> "TokenEncoder":
        """Read ``words``, ``vectors`` and their casedness from an embeddings ``.npz``.

        Raises
        ------
        DataError
            If the file cannot be read, lacks either array or states no casedness.
        """
        emb = load_embeddings(path)
        return cls(emb.words, emb.vectors, cased=emb.cased, encoding=encoding)

    def with_encoding(self, **changes) -> "TokenEncoder":
        """The same vectors under an encoding with ``changes`` (for the sensitivity rows)."""
        from dataclasses import replace

        known = self.vectors.shape[0]
        words = [w for w, i in sorted(self.index.items(), key=lambda kv: kv[1]) if i < known]
        return TokenEncoder(words, self.vectors, cased=self.cased, encoding=replace(self.encoding, **changes))

    def identity(self, sentences, aspect_masks=None) -> list[np.ndarray] | None:
        """Identity ids of the tokens for ``identical_match`` (``None`` without it): equal for identical tokens.

        Two tokens are identical when their lookup keys and aspect marking are (the ``sm`` ids of the
        embeddings' casing, ``w_AT`` for an aspect token).
        """
        if not self.encoding.identical_match:
            return None
        masks = [None] * len(sentences) if aspect_masks is None else list(aspect_masks)
        return [self.ids(toks, mask) for toks, mask in zip(sentences, masks)]

    def _id(self, key: str) -> int:
        idx = self.index.get(key)
        if idx is None:
            idx = self.index[key] = len(self.index)
        return idx

    def ids(self, tokens, aspect_mask=None, *, cased: bool | None = None) -> np.ndarray:
        """Token ids of one sentence; with ``aspect_mask``, aspect tokens get their ``_AT`` id.

        Parameters
        ----------
        tokens : sequence of str
        aspect_mask : sequence of int or bool, optional
        cased : bool, optional
            Keep case in the keys; default: as the embeddings file states. Another
            setting is for string match only (the keys may then lack a vector).

        Returns
        -------
        ndarray of int64
        """
        cased = self.cased if cased is None else bool(cased)
        keys = [lookup_key(str(t), cased=cased) for t in tokens]
        if aspect_mask is not None:
            keys = [k + ASPECT_SUFFIX if m else k for k, m in zip(keys, aspect_mask, strict=True)]
        return np.array([self._id(k) for k in keys], dtype=np.int64)

    def vectors_of(self, ids: np.ndarray) -> np.ndarray:
        """Vectors of ids (zero for ids past the embeddings), shape (L, d)."""
        ids = np.asarray(ids, dtype=np.int64)
        out = np.zeros((ids.size, self.vectors.shape[1]))
        known = ids < self.vectors.shape[0]
        out[known] = self.vectors[ids[known]]
        return out

    def encode(self, sentences, *, variant: str, aspect_masks=None, lowercase_sm: bool = True) -> list[np.ndarray]:
        """Kernel input for a list of tokenised sentences.

        Parameters
        ----------
        sentences : sequence of sequence of str
        variant : {"sm", "west", "wess"}
            ``sm``: 1-D id arrays; ``west``/``wess``: (L x d) vector arrays,
            (L x (d+1)) with the aspect dimension when ``aspect_masks`` is given
            (appended to the raw or unit-length word vector, as ``encoding.aspect_bit`` says).
        aspect_masks : sequence of sequence of int, optional
            1 on aspect-term tokens.
        lowercase_sm : bool, optional
            ``sm`` only: match tokens lower-cased (True) or as written (False),
            whatever the casedness of the vectors.

        Returns
        -------
        list of ndarray
        """
        masks = [None] * len(sentences) if aspect_masks is None else list(aspect_masks)
        if len(masks) != len(sentences):
            raise ValueError(f"{len(masks)} aspect masks for {len(sentences)} sentences")
        if variant == "sm":
            return [self.ids(toks, mask, cased=not lowercase_sm) for toks, mask in zip(sentences, masks)]
        out = []
        for toks, mask in zip(sentences, masks):
            vecs = self.vectors_of(self.ids(toks))
            if aspect_masks is not None and self.encoding.aspect_bit == "unit":
                norms = np.linalg.norm(vecs, axis=1, keepdims=True)
                vecs = np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)
            if aspect_masks is not None:
                flag = np.asarray(mask, dtype=np.float64).reshape(-1, 1)
                if flag.shape[0] != vecs.shape[0]:
                    raise ValueError(f"aspect mask of length {flag.shape[0]} for {vecs.shape[0]} tokens")
                vecs = np.hstack([vecs, flag])
            out.append(vecs)
        return out
