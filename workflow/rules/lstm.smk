# UniLSTM / BiLSTM baselines of the any-gram paper (Section 5.2, Table 4): one job per (dataset, system, seed).
from kernbench.models.lstm import planned_runs as lstm_runs
from kernbench.models.lstm import resolve_settings as resolve_lstm_settings


TABLE_RECORDS.setdefault("anygram", []).extend(
    f"{RESULTS}/runs/anygram/{d}/lstm/{system}_seed{seed}.json" for d, system, seed in lstm_runs(config)
)


rule lstm:
    input:
        prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
        embeddings=EMBEDDINGS,
    output:
        record=f"{RESULTS}/runs/anygram/{{dataset}}/lstm/{{system}}_seed{{seed}}.json",
        predictions=f"{RESULTS}/runs/anygram/{{dataset}}/lstm/{{system}}_seed{{seed}}.predictions.parquet",
        model=f"{RESULTS}/runs/anygram/{{dataset}}/lstm/{{system}}_seed{{seed}}.keras",
    params:
        settings=lambda wc: json.dumps(resolve_lstm_settings(config["lstm"], wc.dataset, wc.system), sort_keys=True),
        profile=config["profile"],
    log:
        f"{LOGS}/runs/anygram/{{dataset}}/lstm/{{system}}_seed{{seed}}.log",
    wildcard_constraints:
        dataset="|".join(TOKENISED),
        system="UniLSTM|BiLSTM",
        seed=r"\d+",
    conda:
        CONDA_ENV
    # One thread per job: two jobs share the two cores, and results do not depend on --cores.
    threads: 1
    resources:
        mem_mb=3000,
        runtime=120,
    shell:
        "kernbench lstm --dataset {wildcards.dataset} --system {wildcards.system} --seed {wildcards.seed} "
        "--prepared {input.prepared:q} --embeddings {input.embeddings:q} --settings {params.settings:q} "
        "--profile {params.profile:q} --threads {threads} "
        "--record {output.record:q} --predictions {output.predictions:q} --model {output.model:q} > {log:q} 2>&1"
