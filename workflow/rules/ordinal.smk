from kernbench.papers.ordinal import SLUGS

# Feature selection for ordinal text classification (Baccianella et al.): one job per (dataset, system),
# then a Figure-1-style plot per dataset, the `ordinal` table and the claims table.
ORDINAL_DATASETS = [d for d in config["ordinal"]["datasets"] if d in config["datasets"]]


# Run records of every (dataset, system), by dataset.
ORDINAL_RECORDS = {
    d: [f"{RESULTS}/runs/ordinal/{d}/featsel/{slug}.json" for slug in SLUGS.values()] for d in ORDINAL_DATASETS
}


if ORDINAL_DATASETS:
    TABLE_RECORDS.setdefault("ordinal", []).extend(r for d in ORDINAL_DATASETS for r in ORDINAL_RECORDS[d])
    TABLE_MD_SUBSET["ordinal"] = {"xi": config["ordinal"]["table_xi"]}
if ORDINAL_DATASETS and "ordinal" in config["tables"]:
    EXTRA_TARGETS.extend(f"{RESULTS}/figures/ordinal_{d}.png" for d in ORDINAL_DATASETS)
    EXTRA_TARGETS.extend(f"{RESULTS}/tables/ordinal_claims.{ext}" for ext in ("csv", "md"))
    SENSITIVITY_PARTS.append(f"{RESULTS}/sensitivity/ordinal/ordinal.prp_weights.csv")


rule ordinal_run:
    input:
        prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
    output:
        record=f"{RESULTS}/runs/ordinal/{{dataset}}/featsel/{{slug}}.json",
        predictions=f"{RESULTS}/runs/ordinal/{{dataset}}/featsel/{{slug}}.predictions.parquet",
    params:
        settings=json.dumps(config["ordinal"]["run"], sort_keys=True),
        seed=config["seed"],
        profile=config["profile"],
    log:
        f"{LOGS}/runs/ordinal/{{dataset}}/featsel/{{slug}}.log",
    benchmark:
        f"{BENCHMARKS}/ordinal_run/runs/ordinal/{{dataset}}/featsel/{{slug}}.tsv"
    wildcard_constraints:
        dataset="|".join(d for d, spec in DATASETS.items() if spec.task == "ordinal"),
        slug="|".join(SLUGS.values()),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads} "
        "kernbench ordinal-run --dataset {wildcards.dataset} --system {wildcards.slug} "
        "--prepared {input.prepared:q} --params {params.settings:q} --seed {params.seed} "
        "--profile {params.profile:q} --threads {threads} "
        "--record {output.record:q} --predictions {output.predictions:q} > {log:q} 2>&1"


rule ordinal_figure:
    input:
        f"{RESULTS}/tables/ordinal.csv",
    output:
        report(
            f"{RESULTS}/figures/ordinal_{{dataset}}.png",
            caption="../report/ordinal_curves.rst",
            category="Ordinal feature selection (Figure 1)",
            labels=lambda wildcards: {"figure": f"MAE^M against the reduction level, {wildcards.dataset}"},
        ),
    log:
        f"{LOGS}/figures/ordinal_{{dataset}}.log",
    benchmark:
        f"{BENCHMARKS}/ordinal_figure/figures/ordinal_{{dataset}}.tsv"
    wildcard_constraints:
        dataset="|".join(d for d, spec in DATASETS.items() if spec.task == "ordinal"),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "kernbench figure ordinal --input {input:q} --dataset {wildcards.dataset} --out {output:q} > {log:q} 2>&1"


rule ordinal_claims:
    input:
        records=[r for d in ORDINAL_DATASETS for r in ORDINAL_RECORDS[d]],
    output:
        csv=f"{RESULTS}/tables/ordinal_claims.csv",
        md=f"{RESULTS}/tables/ordinal_claims.md",
    params:
        settings=json.dumps(config["ordinal"]["claims"], sort_keys=True),
        resamples=config["uncertainty"]["resamples"],
        seed=config["seed"],
    log:
        f"{LOGS}/tables/ordinal_claims.log",
    benchmark:
        f"{BENCHMARKS}/ordinal_claims/tables/ordinal_claims.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench ordinal-claims --records {input.records:q} --params {params.settings:q} "
        "--resamples {params.resamples} --seed {params.seed} --csv {output.csv:q} --md {output.md:q} > {log:q} 2>&1"


# Sensitivity of the ordinal table to the PRP weights: the other weighting, at the compared levels only.
rule ordinal_sensitivity_prp_weights:
    input:
        records=[f"{RESULTS}/runs/ordinal/{d}/featsel/{SLUGS['PRP']}.json" for d in ORDINAL_DATASETS],
        prepared=[f"{RESULTS}/prepared/{d}.parquet" for d in ORDINAL_DATASETS],
    output:
        f"{RESULTS}/sensitivity/ordinal/ordinal.prp_weights.csv",
    params:
        levels=json.dumps(config["uncertainty"]["ordinal_xi"]),
        resamples=config["uncertainty"]["resamples"],
    log:
        f"{LOGS}/sensitivity/ordinal/ordinal.prp_weights.log",
    benchmark:
        f"{BENCHMARKS}/ordinal_sensitivity_prp_weights/sensitivity/ordinal/ordinal.prp_weights.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads} "
        "kernbench ordinal-sensitivity --records {input.records:q} --prepared {input.prepared:q} "
        "--levels {params.levels:q} --resamples {params.resamples} --out {output:q} > {log:q} 2>&1"


COMPARED_TABLES.append("ordinal")
