"""Kaljahi & Foster, *Any-gram kernels for sentence classification*: Table 3 (kernels and LSTMs)."""

from kernbench.paper import Paper

PAPER = Paper(
    name="anygram",
    targets="kernbench.papers.anygram.plan:targets",
    catalog_tasks=("classification",),
    caption="Kaljahi & Foster, Table 3: any-gram kernels and LSTMs (accuracy and macro-F1, %)",
    compared_metrics=("accuracy",),
    headline_metric="accuracy",
    noise_choices=("semeval14.dev_split_seed",),
    summary="kernbench.papers.anygram.summary:summary_lines",
    figures={
        "anygram-accuracy": "kernbench.papers.anygram.figures:anygram_accuracy",
        "throughput": "kernbench.papers.anygram.figures:throughput",
    },
    rules=("kernbench.papers.anygram:lstm.smk", "kernbench.papers.anygram:anygram.smk"),
    tracking_rank=2,
    config_keys=("anygram", "lstm"),
    config_schema="kernbench.papers.anygram:config.schema.yaml",
    config_names="kernbench.papers.anygram.config_names:config_names",
    descriptions={
        "anygram": (
            "Kaljahi & Foster, **Table 3**: dev and test accuracy and macro-F1 of the kernel systems (any-gram "
            "kernels and tree-kernel any-grams) and the UniLSTM / BiLSTM baselines on SemEval-2014 laptop and "
            "restaurant and SST-5. LSTM cells are means over seeds (``std``, ``n_seeds``)."
        ),
    },
    command_modules=(
        "kernbench.papers.anygram.commands",
        "kernbench.papers.anygram.lstm_commands",
        "kernbench.papers.anygram.sensitivity_commands",
    ),
)
