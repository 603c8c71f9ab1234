# Saunders, Shawe-Taylor & Vinokourov, Table 1: one cached features job per dataset, then one SVM job per dataset
# (a linear SVM per system and category), a table and a figure; the sensitivity rows are in
# fisher_sensitivity.smk. The datasets are Reuters and the catalog's ranking datasets listed under `datasets`.
from kernbench.papers.fisher import plan as fisher_plan

FISHER = config["fisher"]
FISHER_FEATURE_KEYS = ("documents", "lowercase", "collapse_whitespace", "k", "min_count", "t", "c", "max_state_length")
FISHER_SVM_KEYS = ("C", "solver", "loss", "intercept_scaling", "max_iter")
# With c: cv the features job chooses c by cross-validation on the training documents, with these settings.
FISHER_CV_KEYS = ("c_grid", "cv_folds", "categories") + FISHER_SVM_KEYS if FISHER["c"] == "cv" else ()
FISHER_RUN = f"{RESULTS}/{fisher_plan.RUN}"
FISHER_DATASETS = fisher_plan.datasets(config)


# The feature caches of every system of a dataset are one job, as are its SVMs: the prepared table and the
# libraries are loaded once for them.
FISHER_FEATURES = f"{RESULTS}/cache/fisher/{{dataset}}/{{system}}"


rule fisher_features:
    input:
        prepared=lambda wc: prepared(wc.dataset),
    output:
        features=expand(f"{FISHER_FEATURES}.npz", system=FISHER["systems"], allow_missing=True),
        info=expand(f"{FISHER_FEATURES}.json", system=FISHER["systems"], allow_missing=True),
    params:
        settings=lambda wc: json.dumps(
            fisher_plan.feature_settings(config, wc.dataset, FISHER_FEATURE_KEYS + FISHER_CV_KEYS), sort_keys=True
        ),
        seed=config["seed"],
        systems=FISHER["systems"],
        # The cache paths with {system} left for the command.
        cache=lambda wc: expand(FISHER_FEATURES, dataset=wc.dataset, allow_missing=True)[0],
    log:
        f"{LOGS}/{fisher_plan.FEATURES_JOB}.log",
    benchmark:
        f"{BENCHMARKS}/fisher_features/{fisher_plan.FEATURES_JOB}.tsv"
    wildcard_constraints:
        dataset="|".join(FISHER_DATASETS),
    conda:
        CONDA_ENV
    priority: 1  # the SVM job, and the eight sensitivity jobs after it, wait for it
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "kernbench fisher-features --system {params.systems:q} --prepared {input.prepared:q} "
        "--params {params.settings:q} --seed {params.seed} --threads {threads} --out {params.cache:q}.npz "
        "--info {params.cache:q}.json > {log:q} 2>&1"


# One SVM job per dataset: for each system, the linear Gram matrices are computed once and every category's SVM
# trains on them. Its outputs are the dataset's categories, so each dataset has a rule of its own; Reuters' is
# fisher_svm.
for _dataset, _categories in FISHER_DATASETS.items():
    _run = FISHER_RUN.replace("{dataset}", _dataset)
    _features = FISHER_FEATURES.replace("{dataset}", _dataset)

    rule:
        name:
            "fisher_svm" if _dataset == fisher_plan.DATASET else f"fisher_svm_{_dataset}"
        input:
            prepared=prepared(_dataset),
            features=expand(f"{_features}.npz", system=FISHER["systems"]),
            info=expand(f"{_features}.json", system=FISHER["systems"]),
        output:
            records=expand(f"{_run}.json", system=FISHER["systems"], category=_categories),
            predictions=expand(f"{_run}.predictions.parquet", system=FISHER["systems"], category=_categories),
        params:
            dataset=_dataset,
            systems=FISHER["systems"],
            settings=json.dumps({k: FISHER[k] for k in FISHER_SVM_KEYS}, sort_keys=True),
            seed=config["seed"],
            profile=config["profile"],
            # The paths with {system} and {category} left for the command (a function: a string would be expanded).
            cache=lambda wildcards, template=_features: template,
            run=lambda wildcards, template=_run: template,
            categories=_categories,
        log:
            f"{LOGS}/{fisher_plan.SVM_JOB.format(dataset=_dataset)}.log",
        benchmark:
            f"{BENCHMARKS}/fisher_svm/{fisher_plan.SVM_JOB.format(dataset=_dataset)}.tsv"
        conda:
            CONDA_ENV
        priority: 1  # the sensitivity jobs wait for it
        threads: 1
        resources:
            mem_mb=2500,  # libsvm's dense Gram matrices: 9603² and 3299 x 9603 doubles on Reuters
            runtime=60,
        shell:
            "kernbench fisher-svm --dataset {params.dataset} --system {params.systems:q} "
            "--category {params.categories:q} --prepared {input.prepared:q} --features {params.cache:q}.npz "
            "--features-info {params.cache:q}.json --params {params.settings:q} --seed {params.seed} "
            "--profile {params.profile:q} --threads {threads} --record {params.run:q}.json "
            "--predictions {params.run:q}.predictions.parquet > {log:q} 2>&1"


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
