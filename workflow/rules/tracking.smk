# MLflow: every run record, the tables and the figures, logged by one writer.


rule track:
    # The only rule that writes to MLflow: one writer, so parallel jobs never lock the store.
    input:
        records=lambda wildcards: all_records(),
        tables=expand(f"{RESULTS}/tables/{{table}}.csv", table=config["tables"]),
        figures=lambda wildcards: sorted(
            t for t in paper_outputs() if os.path.basename(os.path.dirname(t)) == "figures" and t.endswith(".png")
        ),
    output:
        f"{RESULTS}/tracking/mlflow_runs.tsv",
    params:
        results_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output[0])),
        tracking_uri=config["mlflow"]["tracking_uri"],
        subsets=json.dumps(table_md_subsets(), sort_keys=True),
    log:
        f"{LOGS}/track.log",
    benchmark:
        f"{BENCHMARKS}/track/track.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=3000,  # loads the Keras models to log them as MLflow models
        runtime=20,
    shell:
        "kernbench track --records {input.records:q} --tables {input.tables:q} --figures {input.figures:q} "
        "--subsets {params.subsets:q} --results-dir {params.results_dir:q} "
        "--tracking-uri={params.tracking_uri:q} --manifest {output:q} > {log:q} 2>&1"
