"""A kernel setting of Table 3: a system of the registry and the values of its parameters (the decay ``lam``
and, for the threshold systems, ``theta``).

Its name (``<system>_lam0.4_theta0.8``) keys the Gram cache and the workflow's ``{kernel}`` wildcard;
:class:`KernelSetting` writes it, parses it and gives the workflow its pattern, all three from
:data:`kernbench.papers.anygram.systems.SYSTEMS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from kernbench.errors import DataError
from kernbench.papers.anygram import systems


class _Pattern:
    """The kernel-setting names of the registered systems, each with its parameters, as a regular expression
    (built when read, so that it holds every system registered by then)."""

    def __get__(self, instance, owner) -> str:
        names = [
            re.escape(s.name) + "".join(rf"_{p}[0-9.e+-]+" for p in systems.PARAMETERS if p in s.params)
            for s in sorted(systems.SYSTEMS.values(), key=lambda s: len(s.name), reverse=True)
        ]
        return f"(?:{'|'.join(names)})"


@dataclass(frozen=True)
class KernelSetting:
    """One kernel setting and its name.

    Attributes
    ----------
    system : str
        A key of :data:`kernbench.papers.anygram.systems.SYSTEMS`.
    lam : float or None
        Decay factor (systems with the parameter ``lam``).
    theta : float or None
        Similarity threshold (threshold systems only).
    """

    system: str
    lam: float | None
    theta: float | None = None

    #: The name's pattern, as the workflow's ``{kernel}`` wildcard constraint.
    PATTERN: ClassVar[str] = _Pattern()
    _PARTS: ClassVar[re.Pattern] = re.compile(
        r"(?P<system>[A-Za-z][A-Za-z0-9]*)(?:_lam(?P<lam>[0-9.e+-]+?))?(?:_theta(?P<theta>[0-9.e+-]+))?"
    )

    @property
    def name(self) -> str:
        """File-name key, e.g. ``<system>_lam0.4_theta0.8``: each parameter the system has, in order."""
        params = systems.get(self.system).params
        values = {"lam": self.lam, "theta": self.theta}
        return self.system + "".join(f"_{p}{float(values[p]):g}" for p in systems.PARAMETERS if p in params)

    @classmethod
    def parse(cls, name: str) -> KernelSetting:
        """The setting whose :attr:`name` is ``name``.

        Raises
        ------
        DataError
            If ``name`` is not ``<system>[_lam<lam>][_theta<theta>]`` with a registered system and
            exactly the parameters that system has.
        """
        match = cls._PARTS.fullmatch(name)
        if not match or match["system"] not in systems.SYSTEMS:
            raise DataError(
                f"kernel name {name!r} is not <system>_lam<lam>[_theta<theta>] with a known system "
                f"({', '.join(systems.SYSTEMS)})"
            )
        system = match["system"]
        params = systems.get(system).params
        for p in systems.PARAMETERS:
            if (p in params) != (match[p] is not None):
                raise DataError(f"kernel name {name!r}: {system} {'needs' if p in params else 'takes no'} {p}")
        value = {p: None if match[p] is None else float(match[p]) for p in systems.PARAMETERS}
        return cls(system, value["lam"], value["theta"])
