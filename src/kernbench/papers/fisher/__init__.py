"""Saunders, Shawe-Taylor & Vinokourov, *String kernels, Fisher kernels and finite state automata*: Table 1."""

from kernbench.paper import Paper

PAPER = Paper(
    name="fisher",
    targets="kernbench.papers.fisher.plan:targets",
    catalog_tasks=("ranking",),
    caption="Saunders, Shawe-Taylor & Vinokourov, Table 1: string, Fisher and FSA kernels (%)",
    compared_metrics=("average_precision", "average_precision_ranking"),
    headline_metric="average_precision",
    summary="kernbench.papers.fisher.summary:summary_lines",
    figures={"fisher-average-precision": "kernbench.papers.fisher.figures:fisher_average_precision"},
    command_modules=("kernbench.papers.fisher.commands",),
    mean_over_datasets=True,
    rules=("kernbench.papers.fisher:fisher.smk", "kernbench.papers.fisher:fisher_sensitivity.smk"),
    tracking_rank=1,
    config_keys=("fisher",),
    config_schema="kernbench.papers.fisher:config.schema.yaml",
    config_names="kernbench.papers.fisher.config_names:config_names",
    descriptions={
        "fisher": (
            "Saunders, Shawe-Taylor & Vinokourov, **Table 1**: test average precision (with precision, recall and "
            "F1 at the SVM threshold) of BoW-TFIDF, the n-gram Fisher kernels and the FSA kernels on the ten "
            "largest Reuters-21578 ModApte categories (the category is in the ``dataset`` column)."
        ),
    },
)
