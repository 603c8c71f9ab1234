# MLflow: every run record, the tables and the figures, logged one paper at a time by one writer.

#: The order in which the papers are logged: each paper's job waits for the one before it, so that only one
#: process writes to the store at a time, and the papers whose jobs usually finish first come first, so that
#: only the last paper's logging (the any-gram paper's, after its LSTMs) is left at the end of a run.
TRACKING_ORDER = ["ordinal", "fisher", "anygram"]


def record_paper(record):
    """The paper of a run record, from its path ``<results_dir>/runs/<paper>/...``."""
    parts = os.path.relpath(record, RESULTS).split(os.sep)
    if parts[0] != "runs" or len(parts) < 3:
        raise ValueError(f"run record outside {RESULTS}/runs/<paper>/: {record}")
    return parts[1]


def tracked_papers():
    """The papers that have run records under this config, in :data:`TRACKING_ORDER`."""
    papers = {record_paper(r) for r in all_records()}
    return [p for p in TRACKING_ORDER if p in papers] + sorted(papers - set(TRACKING_ORDER))


def paper_manifest(paper):
    return f"{RESULTS}/tracking/papers/{paper}.tsv"


def previous_manifest(paper):
    """The manifest of the paper logged before ``paper`` (none for the first)."""
    papers = tracked_papers()
    index = papers.index(paper)
    return [paper_manifest(papers[index - 1])] if index else []


rule track:
    # The only rule that writes to MLflow, one paper after the other, so parallel jobs never lock the store.
    input:
        records=lambda wildcards: [r for r in all_records() if record_paper(r) == wildcards.paper],
        tables=lambda wildcards: [
            f"{RESULTS}/tables/{table}.csv" for table in config["tables"] if table in ("baselines", wildcards.paper)
        ],
        figures=lambda wildcards: sorted(
            t for t in paper_outputs()
            if os.path.basename(os.path.dirname(t)) == "figures" and t.endswith(".png")
            and os.path.basename(t).startswith(f"{wildcards.paper}_")
        ),
        previous=lambda wildcards: previous_manifest(wildcards.paper),
    output:
        f"{RESULTS}/tracking/papers/{{paper}}.tsv",
    params:
        results_dir=RESULTS,
        tracking_uri=config["mlflow"]["tracking_uri"],
        subsets=json.dumps(table_md_subsets(), sort_keys=True),
    log:
        f"{LOGS}/track/{{paper}}.log",
    benchmark:
        f"{BENCHMARKS}/track/{{paper}}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=3000,  # loads the Keras models to log them as MLflow models
        runtime=20,
    shell:
        "kernbench track --records {input.records:q} --tables {input.tables:q} --figures {input.figures:q} "
        "--previous {input.previous:q} --subsets {params.subsets:q} --results-dir {params.results_dir:q} "
        "--tracking-uri={params.tracking_uri:q} --manifest {output:q} > {log:q} 2>&1"


rule tracking_manifest:
    # Every MLflow run of the workflow: the last paper's manifest holds the earlier papers' rows too.
    input:
        lambda wildcards: paper_manifest(tracked_papers()[-1]),
    output:
        f"{RESULTS}/tracking/mlflow_runs.tsv",
    localrule: True
    shell:
        "cp {input:q} {output:q}"
