"""A kernel setting of Table 3: a system, the decay ``lam`` and, for the threshold systems, ``theta``.

Its name (``AGKwest_lam0.4_theta0.8``) keys the Gram cache and the workflow's
``{kernel}`` wildcard; :class:`KernelSetting` writes it, parses it and gives the
workflow its pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from kernbench.errors import DataError

#: system -> (family, variant)
SYSTEMS = {
    "AGKsm": ("agk", "sm"),
    "AGKwest": ("agk", "west"),
    "AGKwess": ("agk", "wess"),
    "NGTKsm": ("ngtk", "sm"),
    "NGTKwest": ("ngtk", "west"),
}


def uses_theta(system: str) -> bool:
    """Whether the system has a similarity threshold to tune."""
    return SYSTEMS[system][1] == "west"


def kernel_encoding(system: str, cfg: dict) -> dict:
    """The encoding keys of the ``anygram`` config ``cfg`` that a system's Gram matrices depend on.

    Every system sees ``split_contractions``; the embedding systems also ``identical_match``, and
    ``AGKwest`` and ``AGKwess`` ``aspect_bit`` (NGTK marks aspects by a leaf, string match by ``_AT``).
    """
    keys = ["split_contractions"]
    if SYSTEMS[system][1] != "sm":
        keys.append("identical_match")
    if SYSTEMS[system] in (("agk", "west"), ("agk", "wess")):
        keys.append("aspect_bit")
    return {k: cfg[k] for k in keys}


@dataclass(frozen=True)
class KernelSetting:
    """One kernel setting and its name.

    Attributes
    ----------
    system : str
        A key of :data:`SYSTEMS`.
    lam : float
        Decay factor.
    theta : float or None
        Similarity threshold (threshold systems only).
    """

    system: str
    lam: float
    theta: float | None = None

    #: The name's pattern, as the workflow's ``{kernel}`` wildcard constraint.
    PATTERN: ClassVar[str] = r"(?:AGK|NGTK)[a-z]+_lam[0-9.e+-]+(?:_theta[0-9.e+-]+)?"
    _PARTS: ClassVar[re.Pattern] = re.compile(
        r"(?P<system>[A-Za-z]+)_lam(?P<lam>[0-9.e+-]+?)(?:_theta(?P<theta>[0-9.e+-]+))?"
    )

    @property
    def name(self) -> str:
        """File-name key, e.g. ``AGKwest_lam0.4_theta0.8`` (``theta`` only where the system uses it)."""
        name = f"{self.system}_lam{float(self.lam):g}"
        return f"{name}_theta{float(self.theta):g}" if uses_theta(self.system) else name

    @classmethod
    def parse(cls, name: str) -> KernelSetting:
        """The setting whose :attr:`name` is ``name``.

        Raises
        ------
        DataError
            If ``name`` is not ``<system>_lam<lam>[_theta<theta>]`` with a known system, or has a
            ``theta`` where the system takes none (or lacks one it needs).
        """
        match = cls._PARTS.fullmatch(name)
        if not match or match["system"] not in SYSTEMS:
            raise DataError(f"kernel name {name!r} is not <system>_lam<lam>[_theta<theta>] with a known system")
        system, theta = match["system"], match["theta"]
        if uses_theta(system) != (theta is not None):
            raise DataError(f"kernel name {name!r}: {system} {'needs' if uses_theta(system) else 'takes no'} theta")
        return cls(system, float(match["lam"]), None if theta is None else float(theta))
