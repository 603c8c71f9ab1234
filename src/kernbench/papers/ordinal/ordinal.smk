from kernbench.papers.ordinal import SLUGS
from kernbench.papers.ordinal import plan as ordinal_plan

# Feature selection for ordinal text classification (Baccianella et al.): one job per dataset runs every system
# (one process: the dataset and scikit-learn are loaded once), then a Figure-1-style plot per dataset, the
# `ordinal` table and the claims table.
ORDINAL_DATASETS = ordinal_plan.datasets(config)
ORDINAL_RUNS = f"{RESULTS}/{ordinal_plan.RUN}"


rule ordinal_run:
    input:
        prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
    output:
        records=expand(f"{ORDINAL_RUNS}.json", slug=SLUGS.values(), allow_missing=True),
        predictions=expand(f"{ORDINAL_RUNS}.predictions.parquet", slug=SLUGS.values(), allow_missing=True),
    params:
        settings=json.dumps(config["ordinal"]["run"], sort_keys=True),
        seed=config["seed"],
        profile=config["profile"],
        systems=list(SLUGS.values()),
        # The output paths with {slug} left for the command.
        run=lambda wc: expand(ORDINAL_RUNS, dataset=wc.dataset, allow_missing=True)[0],
    log:
        f"{LOGS}/{ordinal_plan.JOB}.log",
    benchmark:
        f"{BENCHMARKS}/ordinal_run/{ordinal_plan.JOB}.tsv"
    wildcard_constraints:
        dataset="|".join(d for d, spec in DATASETS.items() if spec.task == "ordinal"),
    conda:
        CONDA_ENV
    priority: LONG_RUN_PRIORITY
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    shell:
        "OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads} "
        "kernbench ordinal-run --dataset {wildcards.dataset} --system {params.systems:q} "
        "--prepared {input.prepared:q} --params {params.settings:q} --seed {params.seed} "
        "--profile {params.profile:q} --threads {threads} "
        "--record {params.run:q}.json --predictions {params.run:q}.predictions.parquet > {log:q} 2>&1"


rule ordinal_figure:
    input:
        f"{RESULTS}/tables/ordinal.csv",
    output:
        report(
            f"{RESULTS}/figures/ordinal_{{dataset}}.png",
            caption="ordinal_curves.rst",
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
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "kernbench figure ordinal --input {input:q} --dataset {wildcards.dataset} --out {output:q} > {log:q} 2>&1"


rule ordinal_claims:
    input:
        records=ordinal_plan.records(config, RESULTS),
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
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench ordinal-claims --records {input.records:q} --params {params.settings:q} "
        "--resamples {params.resamples} --seed {params.seed} --csv {output.csv:q} --md {output.md:q} > {log:q} 2>&1"


# Sensitivity of the ordinal table to its open choices: PRP under the other weights (ordinal.prp_weights),
# RR(NC*IDF) under the other smoothing of NC (ordinal.nc_epsilon); the alternative at the compared levels only.
ORDINAL_SENSITIVITY = {"prp_weights": "PRP", "nc_epsilon": "RR(NC*IDF)"}

for _choice, _system in ORDINAL_SENSITIVITY.items():

    rule:
        name:
            f"ordinal_sensitivity_{_choice}"
        input:
            records=[f"{RESULTS}/{ordinal_plan.RUN.format(dataset=d, slug=SLUGS[_system])}.json" for d in ORDINAL_DATASETS],
            prepared=[f"{RESULTS}/prepared/{d}.parquet" for d in ORDINAL_DATASETS],
        output:
            f"{RESULTS}/sensitivity/ordinal/ordinal.{_choice}.csv",
        params:
            choice=f"ordinal.{_choice}",
            levels=json.dumps(config["uncertainty"]["ordinal_xi"]),
            resamples=config["uncertainty"]["resamples"],
        log:
            f"{LOGS}/sensitivity/ordinal/ordinal.{_choice}.log",
        benchmark:
            f"{BENCHMARKS}/ordinal_sensitivity_{_choice}/sensitivity/ordinal/ordinal.{_choice}.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=3000,
            runtime=30,
        shell:
            "OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads} "
            "kernbench ordinal-sensitivity --choice {params.choice} --records {input.records:q} "
            "--prepared {input.prepared:q} --levels {params.levels:q} --resamples {params.resamples} "
            "--out {output:q} > {log:q} 2>&1"
