# MLflow: every run record, the tables and the figures, logged one paper at a time by one writer.

rule track:
    # The only rule that writes to MLflow, one paper after the other, so parallel jobs never lock the store.
    input:
        records=lambda wildcards: paper_records(wildcards.paper),
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
        results_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(os.path.dirname(output[0]))),
        tracking_uri=config["mlflow"]["tracking_uri"],
        subsets=json.dumps(table_md_subsets(), sort_keys=True),
    log:
        f"{LOGS}/track/{{paper}}.log",
    benchmark:
        f"{BENCHMARKS}/track/track/{{paper}}.tsv"
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
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
    log:
        f"{LOGS}/tracking_manifest.log",
    conda:
        CONDA_ENV
    localrule: True
    shell:
        "cp {input:q} {output:q} > {log:q} 2>&1"
