# UniLSTM / BiLSTM baselines of the any-gram paper (Section 5.2, Table 4): one job per dataset trains a model per
# system and seed, so that TensorFlow is loaded once for them (the same models as one process per model).
from kernbench.papers.anygram import plan as anygram_plan
from kernbench.papers.anygram.lstm import lstm_hyperparameters
from kernbench.papers.anygram.lstm import resolve_settings as resolve_lstm_settings

LSTM_SEEDS = config["lstm"]["seeds"]
LSTM_SYSTEMS = config["lstm"]["systems"]
# The lstm section with a Table 4 entry for every catalog dataset too.
LSTM_CONFIG = {**config["lstm"], "hyperparameters": lstm_hyperparameters(config)}
LSTM_JOB = anygram_plan.LSTM_JOB  # a job's log and benchmark path
LSTM_RUNS = f"{RESULTS}/{anygram_plan.LSTM_RUN}"
# With an MLflow server, the jobs log epochs and system metrics there while they train
# (kernbench.report.tracking_live). An environment variable, not a param: a job is not rerun when the store changes.
LSTM_TRACKING_URI = config["mlflow"]["tracking_uri"]
os.environ["KERNBENCH_TRACKING_URI"] = LSTM_TRACKING_URI


envvars:
    "KERNBENCH_TRACKING_URI",


# The output files of a job that trains every system and seed of ``runs``, its other wildcards left open.
LSTM_FILES = lambda runs, suffix: expand(f"{runs}{suffix}", system=LSTM_SYSTEMS, seed=LSTM_SEEDS, allow_missing=True)
# Its output arguments: the job's wildcards filled in, {system} and {seed} left for the command.
LSTM_TEMPLATES = lambda runs: lambda wc: {
    name: expand(f"{runs}{suffix}", allow_missing=True, **dict(wc.items()))[0]
    for name, suffix in (("record", ".json"), ("predictions", ".predictions.parquet"), ("model", ".keras"))
}


rule lstm:
    input:
        prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
        embeddings=lambda wc: embeddings_for(wc.dataset),
    output:
        records=LSTM_FILES(LSTM_RUNS, ".json"),
        predictions=LSTM_FILES(LSTM_RUNS, ".predictions.parquet"),
        models=LSTM_FILES(LSTM_RUNS, ".keras"),
    params:
        systems=LSTM_SYSTEMS,
        settings=lambda wc: [
            json.dumps(resolve_lstm_settings(LSTM_CONFIG, wc.dataset, system), sort_keys=True)
            for system in LSTM_SYSTEMS
        ],
        profile=config["profile"],
        templates=LSTM_TEMPLATES(LSTM_RUNS),
        seeds=LSTM_SEEDS,
        mlflow_artifacts=f"{RESULTS}/mlartifacts",
    log:
        f"{LOGS}/{LSTM_JOB}.log",
    benchmark:
        f"{BENCHMARKS}/lstm/{LSTM_JOB}.tsv"
    wildcard_constraints:
        dataset="|".join(TOKENISED),
    conda:
        CONDA_ENV
    priority: 1  # the longest jobs, and Table 3 waits for them; their sensitivity reruns come later
    # One thread per job: two jobs share the two cores, and results do not depend on --cores.
    threads: 1
    resources:
        mem_mb=3000,
        runtime=240,
    shell:
        "kernbench lstm --dataset {wildcards.dataset} --system {params.systems:q} --seed {params.seeds:q} "
        "--prepared {input.prepared:q} --embeddings {input.embeddings:q} --settings {params.settings:q} "
        "--profile {params.profile:q} --threads {threads} --record {params.templates[record]:q} "
        "--predictions {params.templates[predictions]:q} --model {params.templates[model]:q} "
        '--tracking-uri="$KERNBENCH_TRACKING_URI" --mlflow-artifacts {params.mlflow_artifacts:q} > {log:q} 2>&1'


# Sensitivity rows of the LSTMs (tables/sensitivity.csv): every system and seed retrained with the alternative of
# each open choice (anygram_plan.LSTM_CHOICES), one job per (choice, dataset) for its systems and seeds
# (TensorFlow loaded once); the default side is the main runs' predictions. One job per choice then compares
# them over its datasets.
LSTM_SENS_RUNS = f"{RESULTS}/{anygram_plan.LSTM_SENSITIVITY_RUN}"
LSTM_SENSITIVITY_JOB = anygram_plan.LSTM_SENSITIVITY_JOB
LSTM_SENS = f"{RESULTS}/{anygram_plan.LSTM_SENSITIVITY}"
LSTM_SENSITIVITY_DATASETS = anygram_plan.lstm_sensitivity_datasets(config)


rule lstm_sensitivity_run:
    input:
        prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
        embeddings=lambda wc: embeddings_for(wc.dataset),
    output:
        records=LSTM_FILES(LSTM_SENS_RUNS, ".json"),
        predictions=LSTM_FILES(LSTM_SENS_RUNS, ".predictions.parquet"),
        models=LSTM_FILES(LSTM_SENS_RUNS, ".keras"),
    params:
        systems=LSTM_SYSTEMS,
        settings=lambda wc: [
            json.dumps(
                {
                    **resolve_lstm_settings(LSTM_CONFIG, wc.dataset, system),
                    wc.choice: anygram_plan.lstm_alternative(config["lstm"], wc.choice),
                },
                sort_keys=True,
            )
            for system in LSTM_SYSTEMS
        ],
        profile=config["profile"],
        templates=LSTM_TEMPLATES(LSTM_SENS_RUNS),
        seeds=LSTM_SEEDS,
        mlflow_artifacts=f"{RESULTS}/mlartifacts",
    log:
        f"{LOGS}/{LSTM_SENSITIVITY_JOB}.log",
    benchmark:
        f"{BENCHMARKS}/lstm_sensitivity_run/{LSTM_SENSITIVITY_JOB}.tsv"
    wildcard_constraints:
        choice="|".join(anygram_plan.LSTM_CHOICES),
        dataset="|".join(TOKENISED),
    conda:
        CONDA_ENV
    priority: LONG_RUN_PRIORITY
    # One thread per job, as the main LSTM jobs.
    threads: 1
    resources:
        mem_mb=3000,
        runtime=240,
    shell:
        "kernbench lstm --dataset {wildcards.dataset} --system {params.systems:q} --seed {params.seeds:q} "
        "--prepared {input.prepared:q} --embeddings {input.embeddings:q} --settings {params.settings:q} "
        "--profile {params.profile:q} --threads {threads} --table sensitivity --record {params.templates[record]:q} "
        "--predictions {params.templates[predictions]:q} --model {params.templates[model]:q} "
        '--tracking-uri="$KERNBENCH_TRACKING_URI" --mlflow-artifacts {params.mlflow_artifacts:q} > {log:q} 2>&1'


rule lstm_sensitivity:
    # The rows of one choice over every dataset retrained for it: a few seconds of bootstrap, one process.
    input:
        prepared=expand(f"{RESULTS}/prepared/{{dataset}}.parquet", dataset=LSTM_SENSITIVITY_DATASETS),
        defaults=expand(LSTM_FILES(LSTM_RUNS, ".predictions.parquet"), dataset=LSTM_SENSITIVITY_DATASETS),
        alternatives=lambda wc: expand(
            LSTM_FILES(LSTM_SENS_RUNS, ".predictions.parquet"), choice=wc.choice, dataset=LSTM_SENSITIVITY_DATASETS
        ),
    output:
        f"{LSTM_SENS}.csv",
    params:
        datasets=LSTM_SENSITIVITY_DATASETS,
        settings=json.dumps(config["lstm"], sort_keys=True),
        # runs/anygram/<dataset>/lstm/<file> -> runs/anygram
        runs_dir=lambda wildcards, input: os.path.dirname(os.path.dirname(os.path.dirname(input.defaults[0]))),
        # sensitivity/anygram/lstm.<choice>/<dataset>/<file> -> sensitivity/anygram/lstm.<choice>
        alternatives_dir=lambda wildcards, input: os.path.dirname(os.path.dirname(input.alternatives[0])),
        resamples=config["uncertainty"]["resamples"],
        seed=config["seed"],
    log:
        f"{LOGS}/{anygram_plan.LSTM_SENSITIVITY}.log",
    benchmark:
        f"{BENCHMARKS}/lstm_sensitivity/{anygram_plan.LSTM_SENSITIVITY}.tsv"
    wildcard_constraints:
        choice="|".join(anygram_plan.LSTM_CHOICES),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    shell:
        "kernbench lstm-sensitivity --choice {wildcards.choice} --datasets {params.datasets:q} "
        "--prepared {input.prepared:q} --runs-dir {params.runs_dir:q} --alternatives-dir {params.alternatives_dir:q} "
        "--settings {params.settings:q} --resamples {params.resamples} --seed {params.seed} --out {output:q} "
        "> {log:q} 2>&1"
