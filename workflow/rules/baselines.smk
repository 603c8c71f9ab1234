# Triv and BoW-TFIDF (and Triv-3stars on rated corpora) of every dataset, for tables/baselines.csv. One job per
# dataset runs the baselines of its task (kernbench.catalog.BASELINE_SYSTEMS), loading the data and scikit-learn
# once: a rule per task, since the tasks differ in their systems.
for _task, _systems in BASELINE_SYSTEMS.items():

    rule:
        name:
            f"baseline_{_task}"
        input:
            prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
        output:
            records=expand(f"{BASELINE_RUN}.json", system=_systems, allow_missing=True),
            predictions=expand(f"{BASELINE_RUN}.predictions.parquet", system=_systems, allow_missing=True),
        params:
            systems=list(_systems),
            settings=json.dumps(config["baselines"], sort_keys=True),
            seed=config["seed"],
            profile=config["profile"],
            # The output paths with {system} left for the command.
            run=lambda wc: expand(BASELINE_RUN, paper=wc.paper, dataset=wc.dataset, allow_missing=True)[0],
        log:
            f"{LOGS}/{BASELINE_JOB}.log",
        benchmark:
            f"{BENCHMARKS}/baseline_{_task}/{BASELINE_JOB}.tsv"
        wildcard_constraints:
            paper="|".join(PAPERS),
            dataset="|".join(d for d, spec in DATASETS.items() if spec.task == _task) or "(?!)",
        conda:
            CONDA_ENV
        # Short jobs that every paper's track job waits for, through tables/baselines.csv: early, not last.
        priority: 1
        threads: 1
        resources:
            mem_mb=3000,
            runtime=30,
        shell:
            "kernbench baseline --dataset {wildcards.dataset} --system {params.systems:q} "
            "--prepared {input.prepared:q} --params {params.settings:q} --seed {params.seed} "
            "--profile {params.profile:q} --threads {threads} "
            "--record {params.run:q}.json --predictions {params.run:q}.predictions.parquet > {log:q} 2>&1"
