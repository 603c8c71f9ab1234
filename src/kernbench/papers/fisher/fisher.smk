# Saunders, Shawe-Taylor & Vinokourov, Table 1: one cached features job per (dataset, system), then one SVM job per
# (dataset, system) (a linear SVM per category), a table and a figure; the sensitivity rows are in
# fisher_sensitivity.smk. The datasets are Reuters and the catalog's ranking datasets listed under `datasets`.
from kernbench.papers.fisher import plan as fisher_plan

FISHER = config["fisher"]
FISHER_FEATURE_KEYS = ("documents", "lowercase", "collapse_whitespace", "k", "min_count", "t", "c", "max_state_length")
FISHER_SVM_KEYS = ("C", "solver", "loss", "intercept_scaling", "max_iter")
# With c: cv the features job chooses c by cross-validation on the training documents, with these settings.
FISHER_CV_KEYS = ("c_grid", "cv_folds", "categories") + FISHER_SVM_KEYS if FISHER["c"] == "cv" else ()
FISHER_RUN = f"{RESULTS}/{fisher_plan.RUN}"
FISHER_DATASETS = fisher_plan.datasets(config)


rule fisher_features:
    input:
        prepared=lambda wc: prepared(wc.dataset),
    output:
        features=f"{RESULTS}/cache/fisher/{{dataset}}/{{system}}.npz",
        info=f"{RESULTS}/cache/fisher/{{dataset}}/{{system}}.json",
    params:
        settings=lambda wc: json.dumps(
            fisher_plan.feature_settings(config, wc.dataset, FISHER_FEATURE_KEYS + FISHER_CV_KEYS), sort_keys=True
        ),
        seed=config["seed"],
    log:
        f"{LOGS}/fisher/features/{{dataset}}/{{system}}.log",
    benchmark:
        f"{BENCHMARKS}/fisher_features/fisher/features/{{dataset}}/{{system}}.tsv"
    wildcard_constraints:
        dataset="|".join(FISHER_DATASETS),
        system="|".join(FISHER["systems"]),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "kernbench fisher-features --system {wildcards.system} --prepared {input.prepared:q} "
        "--params {params.settings:q} --seed {params.seed} --threads {threads} --out {output.features:q} "
        "--info {output.info:q} > {log:q} 2>&1"


# One SVM job per (dataset, system): the linear Gram matrices are computed once and every category's SVM trains on
# them. Its outputs are the dataset's categories, so each dataset has a rule of its own; Reuters' is fisher_svm.
for _dataset, _categories in FISHER_DATASETS.items():
    _run = FISHER_RUN.replace("{dataset}", _dataset)

    rule:
        name:
            "fisher_svm" if _dataset == fisher_plan.DATASET else f"fisher_svm_{_dataset}"
        input:
            prepared=prepared(_dataset),
            features=rules.fisher_features.output.features.replace("{dataset}", _dataset),
            info=rules.fisher_features.output.info.replace("{dataset}", _dataset),
        output:
            records=expand(f"{_run}.json", system="{system}", category=_categories),
            predictions=expand(f"{_run}.predictions.parquet", system="{system}", category=_categories),
        params:
            dataset=_dataset,
            settings=json.dumps({k: FISHER[k] for k in FISHER_SVM_KEYS}, sort_keys=True),
            seed=config["seed"],
            profile=config["profile"],
            record=lambda wildcards, run=_run: f"{run}.json".replace("{system}", wildcards.system),
            predictions=lambda wildcards, run=_run: f"{run}.predictions.parquet".replace("{system}", wildcards.system),
            categories=_categories,
        log:
            f"{LOGS}/fisher/svm/{_dataset}/{{system}}.log",
        benchmark:
            f"{BENCHMARKS}/fisher_svm/fisher/svm/{_dataset}/{{system}}.tsv"
        wildcard_constraints:
            system="|".join(FISHER["systems"]),
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2500,  # libsvm's dense Gram matrices: 9603² and 3299 x 9603 doubles on Reuters
            runtime=30,
        shell:
            "kernbench fisher-svm --dataset {params.dataset} --system {wildcards.system} "
            "--category {params.categories:q} --prepared {input.prepared:q} --features {input.features:q} "
            "--features-info {input.info:q} --params {params.settings:q} --seed {params.seed} "
            "--profile {params.profile:q} --threads {threads} --record {params.record:q} "
            "--predictions {params.predictions:q} > {log:q} 2>&1"


rule fisher_plot:
    input:
        f"{RESULTS}/tables/fisher.csv",
    output:
        report(
            f"{RESULTS}/figures/fisher_average_precision.png",
            caption="fisher_average_precision.rst",
            category="Fisher and FSA kernels (Table 1)",
            labels={"figure": "test average precision per category and system"},
        ),
    log:
        f"{LOGS}/fisher/plot.log",
    benchmark:
        f"{BENCHMARKS}/fisher_plot/fisher/plot.tsv"
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "kernbench figure fisher-average-precision --input {input:q} --out {output:q} > {log:q} 2>&1"
