"""Feature selection for ordinal text classification (Baccianella, Esuli & Sebastiani).

Modules: :mod:`~kernbench.papers.ordinal.scores` (the seven feature scoring
functions), :mod:`~kernbench.papers.ordinal.selection` (round robin and reduction
levels), :mod:`~kernbench.papers.ordinal.runner` (tf-idf, linear epsilon-SVR, tuning
of ``a`` and the per-level evaluation), :mod:`~kernbench.papers.ordinal.claims`
(the paper's four claims checked against the curves) and
:mod:`~kernbench.papers.ordinal.plot` (Figure 1).
"""

from kernbench.paper import Paper

#: Methods in the order of the paper's Figure 1 legend (FFS and Triv are references).
SELECTION_METHODS = ("Var", "RR(Var)", "PRP", "RR(IGOR)", "Var*IDF", "RR(Var*IDF)", "RR(NC*IDF)")
NEW_METHODS = ("RR(IGOR)", "Var*IDF", "RR(Var*IDF)", "RR(NC*IDF)")
BASELINE_METHODS = ("Var", "RR(Var)", "PRP")
REFERENCE_SYSTEMS = ("FFS", "Triv")
SYSTEMS = (*REFERENCE_SYSTEMS, *SELECTION_METHODS)
#: Methods with the IDF exponent ``a``, tuned on dev.
METHODS_WITH_A = ("Var*IDF", "RR(Var*IDF)", "RR(NC*IDF)")
#: Rank every document gets from the trivial baseline (Triv).
TRIVIAL_RANK = 3

#: File-name slug of each system (the names hold ``*`` and parentheses).
SLUGS = {
    "FFS": "ffs",
    "Triv": "triv",
    "Var": "var",
    "RR(Var)": "rr_var",
    "PRP": "prp",
    "RR(IGOR)": "rr_igor",
    "Var*IDF": "var_idf",
    "RR(Var*IDF)": "rr_var_idf",
    "RR(NC*IDF)": "rr_nc_idf",
}
SYSTEM_OF_SLUG = {slug: system for system, slug in SLUGS.items()}

PAPER = Paper(
    name="ordinal",
    targets="kernbench.papers.ordinal.plan:targets",
    catalog_tasks=("ordinal",),
    caption="Baccianella, Esuli & Sebastiani, Figure 1: MAE^M per feature-selection method and level",
    compared_metrics=("mae_macro",),
    headline_metric=None,
    summary="kernbench.papers.ordinal.summary:summary_lines",
    figures={"ordinal": "kernbench.papers.ordinal.plot:ordinal_curves"},
    command_modules=("kernbench.papers.ordinal.commands",),
    level_baselines=REFERENCE_SYSTEMS,
    extra_tables={"ordinal_claims": "Baccianella, Esuli & Sebastiani: the four claims about Figure 1"},
    rules=("kernbench.papers.ordinal:ordinal.smk",),
    tracking_rank=0,
    config_keys=("ordinal",),
    config_schema="kernbench.papers.ordinal:config.schema.yaml",
    config_names="kernbench.papers.ordinal.config_names:config_names",
    descriptions={
        "ordinal": """Baccianella, Esuli & Sebastiani, **Figure 1**: macro-averaged MAE of ε-SVR after each feature-selection
method, per reduction level ``xi``, on the two review corpora.""",
        "ordinal_claims": """The four claims of Baccianella, Esuli & Sebastiani about Figure 1, answered per dataset from paired comparisons on
the test reviews (paired bootstrap of the MAE^M difference, {{ config["uncertainty"]["resamples"] }}
resamples, two-sided p < {{ config["ordinal"]["claims"]["alpha"] }} counted only in the claimed direction),
one comparison per reduction level of the claim's range. (i) *yes* if every (new method, baseline) pair (Var,
RR(Var), PRP and Triv, every review 3 stars) is
significantly lower at no fewer than {{ config["ordinal"]["claims"]["yes_share"] }} of the levels,
*partly* if some pair is at {{ config["ordinal"]["claims"]["partly_share"] }} or more, else *no*.
(ii) a level *departs* when it is significantly worse than the method's own best level in the range by more than
{{ config["ordinal"]["claims"]["stability_tolerance"] }}; *yes* if every new method is free of departures
at no fewer than {{ config["ordinal"]["claims"]["stable_share"] }} of the levels, *partly* if some are,
else *no*. (iii) as (i), each new method against FFS. A method below FFS at a single level is not enough: with
about 30 levels, noise alone gives that. (iv) the rule of (ii) applied to Var, RR(Var) and PRP: *yes* if every
baseline is unstable (free of departures at fewer levels than that share), *partly* if some is, else *no*. The evidence column gives the shares and mean MAE^M behind each answer.""",
    },
)
