# The sensitivity table: one row per choice a paper leaves open, per table cell it affects.
# Each paper's rule file appends its per-choice CSV files to SENSITIVITY_PARTS.


EXTRA_TARGETS.append(f"{RESULTS}/tables/sensitivity.csv")


rule sensitivity:
    input:
        lambda wildcards: SENSITIVITY_PARTS,
    output:
        csv=f"{RESULTS}/tables/sensitivity.csv",
        md=f"{RESULTS}/tables/sensitivity.md",
    log:
        f"{LOGS}/tables/sensitivity.log",
    benchmark:
        f"{BENCHMARKS}/sensitivity/tables/sensitivity.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench sensitivity --parts {input:q} --csv {output.csv:q} --md {output.md:q} > {log:q} 2>&1"
