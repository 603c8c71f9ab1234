# MLflow: every run record, the tables and the figures, logged one paper at a time by one writer.


rule track:
    # The only rule that writes to MLflow, one paper after the other, so parallel jobs never lock the store.
    input:
        records=lambda wildcards: paper_records(wildcards.paper),
        tables=lambda wildcards: [
            f"{RESULTS}/tables/{table}.csv" for table in config["tables"] if table in ("baselines", wildcards.paper)
        ],
        previous=lambda wildcards: previous_manifest(wildcards.paper),
    output:
        f"{RESULTS}/tracking/papers/{{paper}}.tsv",
    params:
        results_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(os.path.dirname(output[0]))),
        tracking_uri=config["mlflow"]["tracking_uri"],
        subsets=json.dumps(table_md_subsets(), sort_keys=True),
        cost_inputs=lambda wildcards: json.dumps(cost_inputs(wildcards.paper), sort_keys=True),
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
        "kernbench track --records {input.records:q} --tables {input.tables:q} "
        "--previous {input.previous:q} --subsets {params.subsets:q} --results-dir {params.results_dir:q} "
        "--tracking-uri={params.tracking_uri:q} --cost-inputs {params.cost_inputs:q} --no-summary "
        "--manifest {output:q} > {log:q} 2>&1"


rule track_summaries:
    # Each paper's summary run (its rows of every table, its figures), once the tables are built; after the
    # last paper's track job, so that one process writes to the store at a time.
    input:
        tables=summary_tables(),
        figures=sorted(t for t in paper_outputs() if t.endswith(".png") and "/figures/" in t),
        previous=lambda wildcards: paper_manifest(tracked_papers()[-1]),
    output:
        f"{RESULTS}/tracking/summaries.tsv",
    params:
        results_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output[0])),
        tracking_uri=config["mlflow"]["tracking_uri"],
        papers=tracked_papers(),
    log:
        f"{LOGS}/track/summaries.log",
    benchmark:
        f"{BENCHMARKS}/track/track/summaries.tsv"
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    shell:
        "kernbench track-summaries --papers {params.papers:q} --tables {input.tables:q} --figures {input.figures:q} "
        "--previous {input.previous:q} --results-dir {params.results_dir:q} --tracking-uri={params.tracking_uri:q} "
        "--manifest {output:q} > {log:q} 2>&1"


rule tracking_manifest:
    # Every MLflow run of the workflow: the summaries' manifest starts with every paper's rows. Not a local rule:
    # on a cluster every job goes through the scheduler, as the cluster test checks.
    input:
        f"{RESULTS}/tracking/summaries.tsv",
    output:
        f"{RESULTS}/tracking/mlflow_runs.tsv",
    log:
        f"{LOGS}/tracking_manifest.log",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=200,
        runtime=5,
    shell:
        "cp {input:q} {output:q} > {log:q} 2>&1"
