# Sensitivity rows of Table 1 (tables/sensitivity.csv): one job per open choice, re-running only the
# alternatives on the systems listed (fisher.sensitivity), against the main fisher_svm predictions (Reuters only).

FISHER_SENSITIVITY = FISHER["sensitivity"]
FISHER_SENSITIVITY_SYSTEMS = fisher_plan.sensitivity_systems(config)
FISHER_C_SYSTEMS = FISHER_SENSITIVITY_SYSTEMS["c"]


rule fisher_sensitivity:
    input:
        prepared=prepared(fisher_plan.DATASET),
        records=lambda w: expand(f"{FISHER_RUN}.json", dataset=fisher_plan.DATASET,
                                 system=FISHER_SENSITIVITY_SYSTEMS[w.choice], category=FISHER["categories"]),
        # loss and solver re-use the main feature caches; the other choices build their alternatives' features
        features=lambda w: expand(f"{FISHER_FEATURES}.npz", dataset=fisher_plan.DATASET,
                                  system=FISHER_SENSITIVITY_SYSTEMS[w.choice])
        if w.choice in fisher_plan.SVM_CHOICES
        else [],
    output:
        f"{RESULTS}/sensitivity/fisher/fisher.{{choice}}.csv",
    params:
        settings=json.dumps(FISHER, sort_keys=True),
        resamples=config["uncertainty"]["resamples"],
        seed=config["seed"],
    log:
        f"{LOGS}/sensitivity/fisher/{{choice}}.log",
    benchmark:
        f"{BENCHMARKS}/fisher_sensitivity/sensitivity/fisher/{{choice}}.tsv"
    wildcard_constraints:
        choice="|".join(FISHER_SENSITIVITY_SYSTEMS),
    conda:
        CONDA_ENV
    priority: lambda w: LONG_RUN_PRIORITY if w.choice in fisher_plan.FEATURE_CHOICES else 0
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "kernbench fisher-sensitivity --choice {wildcards.choice} --prepared {input.prepared:q} "
        "--records {input.records:q} --features {input.features:q} --params {params.settings:q} "
        "--resamples {params.resamples} --seed {params.seed} --threads {threads} --out {output:q} > {log:q} 2>&1"
