rule baseline:
    input:
        prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
    output:
        record=f"{RESULTS}/runs/{{paper}}/{{dataset}}/{{system}}.json",
        predictions=f"{RESULTS}/runs/{{paper}}/{{dataset}}/{{system}}.predictions.parquet",
    params:
        settings=json.dumps(config["baselines"], sort_keys=True),
        seed=config["seed"],
        profile=config["profile"],
    log:
        f"{LOGS}/runs/{{paper}}/{{dataset}}/{{system}}.log",
    benchmark:
        f"{BENCHMARKS}/baseline/runs/{{paper}}/{{dataset}}/{{system}}.tsv"
    wildcard_constraints:
        paper="|".join(PAPERS),
        dataset="|".join(DATASETS),
        system="|".join(sorted({s for systems in BASELINE_SYSTEMS.values() for s in systems}, key=len, reverse=True)),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    shell:
        "kernbench baseline --dataset {wildcards.dataset} --system {wildcards.system} "
        "--prepared {input.prepared:q} --params {params.settings:q} --seed {params.seed} "
        "--profile {params.profile:q} --threads {threads} "
        "--record {output.record:q} --predictions {output.predictions:q} > {log:q} 2>&1"
