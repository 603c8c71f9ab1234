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
    command_modules=(
        "kernbench.papers.anygram.commands",
        "kernbench.papers.anygram.lstm_commands",
        "kernbench.papers.anygram.sensitivity_commands",
    ),
)
