"""The names each config key of the ordinal paper may hold, checked at start-up."""

from __future__ import annotations


def config_names(catalog) -> dict[str, tuple[list[str], str]]:
    """``{config key: (valid names, what they are)}`` of the ``ordinal`` section.

    Parameters
    ----------
    catalog : kernbench.catalog.Catalog
        Every dataset of the run.

    Returns
    -------
    dict
        ``ordinal.datasets`` with the rated (task ``ordinal``) datasets, built-in or of the catalog.
    """
    return {"ordinal.datasets": (catalog.names(task="ordinal"), "rated (1-5) datasets")}
