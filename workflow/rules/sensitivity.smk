# The sensitivity table: one row per choice a paper leaves open, per table cell it affects.
# Each paper's planner (kernbench.papers.<paper>.plan) names its per-choice CSV files.


rule sensitivity:
    input:
        lambda wildcards: sensitivity_parts(),
    output:
        csv=f"{RESULTS}/tables/sensitivity.csv",
        md=f"{RESULTS}/tables/sensitivity.md",
    log:
        f"{LOGS}/tables/sensitivity.log",
    benchmark:
        f"{BENCHMARKS}/sensitivity/tables/sensitivity.tsv"
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench sensitivity --parts {input:q} --csv {output.csv:q} --md {output.md:q} > {log:q} 2>&1"
