"""The names each config key of the Fisher paper may hold, checked at start-up."""

from __future__ import annotations


def config_names(catalog) -> dict[str, tuple[list[str], str]]:
    """``{config key: (valid names, what they are)}`` of the ``fisher`` section.

    Parameters
    ----------
    catalog : kernbench.catalog.Catalog
        Every dataset of the run.

    Returns
    -------
    dict
        ``fisher.categories`` with the categories of the Reuters registry entry.
    """
    return {"fisher.categories": (list(catalog["reuters"].categories), "Reuters categories")}
