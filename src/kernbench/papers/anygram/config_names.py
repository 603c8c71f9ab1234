"""The names each config key of the any-gram paper may hold (its kernel systems and datasets), checked at start-up."""

from __future__ import annotations

from kernbench.papers.anygram.systems import config_names as system_lists


def config_names(catalog) -> dict[str, tuple[list[str], str]]:
    """``{config key: (valid names, what they are)}`` of the ``anygram`` and ``lstm`` sections.

    Parameters
    ----------
    catalog : kernbench.catalog.Catalog
        Every dataset of the run.

    Returns
    -------
    dict
        The system lists with the names :mod:`~kernbench.papers.anygram.systems` allows in each, and the
        dataset lists with the datasets that have what the list's runs read (tokens, aspect terms).
    """
    tokenised = catalog.names(tokenised=True)
    aspect_terms = catalog.names(aspect_terms=True)
    builtin_tokenised = catalog.names(tokenised=True, builtin=True)
    return {
        **{key: (valid, "kernel systems it may name") for key, valid in system_lists().items()},
        "anygram.agk_datasets": (tokenised, "datasets with tokens"),
        "anygram.ngtk_datasets": (aspect_terms, "datasets with aspect terms"),
        "anygram.sensitivity.datasets": (aspect_terms, "datasets with aspect terms"),
        "anygram.sensitivity.lowercase_sm_datasets": (builtin_tokenised, "built-in datasets"),
        "lstm.datasets": (tokenised, "datasets with tokens"),
        "lstm.sensitivity_datasets": (builtin_tokenised, "built-in datasets with tokens"),
        "lstm.hyperparameters": (builtin_tokenised, "built-in datasets with tokens (a catalog entry has `lstm`)"),
    }
