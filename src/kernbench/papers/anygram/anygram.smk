# Kernel systems of Kaljahi & Foster (Table 3 kernel rows): cached Gram jobs, SVC jobs, throughput.
# The systems, and what each depends on, are those of the registry kernbench.papers.anygram.systems.
from kernbench.papers.anygram.experiment import gram_files as anygram_gram_files
from kernbench.papers.anygram import plan as anygram_plan
from kernbench.papers.anygram import systems as anygram_systems
from kernbench.papers.anygram.experiment import tile_files as anygram_tile_files
from kernbench.papers.anygram.kernel_setting import KernelSetting as AnygramKernelSetting
from kernbench.papers.anygram.systems import kernel_encoding as anygram_kernel_encoding
from kernbench.papers.anygram.sensitivity import sensitivity_jobs as anygram_sensitivity_jobs


# A kernel setting's name (AGKwest_lam0.4_theta0.8), from the kernel-system registry; it also tells apart the rules
# that share a path pattern (anygram_svm_<group> and anygram_primal).
wildcard_constraints:
    kernel=AnygramKernelSetting.PATTERN,


ANYGRAM = config["anygram"]
ANYGRAM_CACHE = f"{RESULTS}/{anygram_plan.GRAM_CACHE}"
# training: primal moves the systems with an explicit feature map from SVC on Gram matrices to a linear SVM on it.
ANYGRAM_PRIMAL = ANYGRAM["training"] == "primal"
ANYGRAM_PRIMAL_SYSTEMS = anygram_systems.names(lambda s: s.primal is not None)

# Only the Gram jobs of the systems that see the casing of string match get it; each gets the encoding keys its kernel
# depends on (contractions, identical tokens, the aspect bit).
ANYGRAM_SYSTEM_OF = lambda wildcards: AnygramKernelSetting.parse(wildcards.kernel).system
ANYGRAM_CASED_SM = lambda wildcards: (
    "" if ANYGRAM["lowercase_sm"] else anygram_plan.cased_sm_flag(ANYGRAM_SYSTEM_OF(wildcards), ANYGRAM)
)
ANYGRAM_ENCODING = lambda wildcards: anygram_plan.encoding_json(ANYGRAM_SYSTEM_OF(wildcards), ANYGRAM)
ANYGRAM_GRAM_FILES = [
    f"{ANYGRAM_CACHE}/{{dataset}}/{{kernel}}/{split}{suffix}.npz"
    for suffix in ("", "_diag")
    for split in SPLITS
]


if ANYGRAM["tile_rows"]:

    rule anygram_gram_tile:
        input:
            prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
            embeddings=lambda wc: embeddings_for(wc.dataset),
        output:
            f"{ANYGRAM_CACHE}/{{dataset}}/{{kernel}}/tiles/{{split}}_{{tile}}.npz",
        params:
            tile_rows=ANYGRAM["tile_rows"],
            cased_sm=ANYGRAM_CASED_SM,
            encoding=ANYGRAM_ENCODING,
        log:
            f"{LOGS}/cache/anygram/{{dataset}}/{{kernel}}/{{split}}_{{tile}}.log",
        benchmark:
            f"{BENCHMARKS}/anygram_gram_tile/cache/anygram/{{dataset}}/{{kernel}}/{{split}}_{{tile}}.tsv"
        wildcard_constraints:
            dataset="|".join(TOKENISED),
        conda:
            CONDA_ENV
        priority: 1  # Table 3's chain: Gram, SVC, table, significance
        threads: ANYGRAM["threads"]
        resources:
            mem_mb=6000,
            runtime=60,
        shell:
            "kernbench anygram-gram-tile --dataset {wildcards.dataset} --kernel {wildcards.kernel} "
            "--prepared {input.prepared:q} --embeddings {input.embeddings:q} --split {wildcards.split} "
            "--tile {wildcards.tile} --tile-rows {params.tile_rows} {params.cased_sm} --encoding {params.encoding:q} "
            "--threads {threads} --out {output:q} "
            "> {log:q} 2>&1"

    rule anygram_gram_assemble:
        input:
            prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
            embeddings=lambda wc: embeddings_for(wc.dataset),
            # The prepared table, and with it a checkpoint's wait, only when the subsample leaves the tile count open.
            tiles=lambda wc: anygram_tile_files(
                ANYGRAM_CACHE,
                wc.dataset,
                wc.kernel,
                lambda: checkpoints.prepare.get(dataset=wc.dataset).output[0],
                ANYGRAM["tile_rows"],
                subsample=config["subsample"],
            ),
        output:
            ANYGRAM_GRAM_FILES,
        params:
            out_dir=lambda wildcards, output: os.path.dirname(output[0]),
            cased_sm=ANYGRAM_CASED_SM,
            encoding=ANYGRAM_ENCODING,
        log:
            f"{LOGS}/cache/anygram/{{dataset}}/{{kernel}}.log",
        benchmark:
            f"{BENCHMARKS}/anygram_gram_assemble/cache/anygram/{{dataset}}/{{kernel}}.tsv"
        wildcard_constraints:
            dataset="|".join(TOKENISED),
        conda:
            CONDA_ENV
        priority: 1  # Table 3's chain: Gram, SVC, table, significance
        threads: ANYGRAM["threads"]
        resources:
            mem_mb=6000,
            runtime=60,
        shell:
            "kernbench anygram-gram-assemble --dataset {wildcards.dataset} --kernel {wildcards.kernel} "
            "--prepared {input.prepared:q} --embeddings {input.embeddings:q} --tiles {input.tiles:q} "
            "{params.cased_sm} --encoding {params.encoding:q} --threads {threads} --out-dir {params.out_dir:q} > {log:q} 2>&1"

else:
    # A threshold system's settings over the theta grid are one job (anygram_gram_theta): the dataset, the
    # embeddings and numba's compiled kernels are loaded once for them. Its outputs are the directories the SVC
    # job selects among (anygram_experiment.gram_dirs), with the system's name as the wildcard.
    ANYGRAM_THETA_SYSTEMS = anygram_systems.names(lambda s: s.uses_theta)
    ANYGRAM_THETA_DIRS = anygram_plan.theta_gram_dirs(ANYGRAM_CACHE, ANYGRAM)

    ruleorder: anygram_gram_theta > anygram_gram

    rule anygram_gram_theta:
        input:
            prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
            embeddings=lambda wc: embeddings_for(wc.dataset),
        output:
            [f"{d}/{split}{suffix}.npz" for d in ANYGRAM_THETA_DIRS for suffix in ("", "_diag") for split in SPLITS],
        params:
            kernels=lambda wc: [os.path.basename(d).format(system=wc.system) for d in ANYGRAM_THETA_DIRS],
            out_dir=lambda wc: f"{ANYGRAM_CACHE}/{wc.dataset}/{{kernel}}",
            cased_sm=lambda wc: anygram_plan.cased_sm_flag(wc.system, ANYGRAM),
            encoding=lambda wc: anygram_plan.encoding_json(wc.system, ANYGRAM),
        log:
            f"{LOGS}/{anygram_plan.THETA_GRAM_JOB}.log",
        benchmark:
            f"{BENCHMARKS}/anygram_gram_theta/{anygram_plan.THETA_GRAM_JOB}.tsv"
        wildcard_constraints:
            dataset="|".join(TOKENISED),
            system="|".join(ANYGRAM_THETA_SYSTEMS),
        conda:
            CONDA_ENV
        priority: 1  # Table 3's chain: Gram, SVC, table, significance
        threads: ANYGRAM["threads"]
        resources:
            mem_mb=6000,
            runtime=60,
        shell:
            "kernbench anygram-gram --dataset {wildcards.dataset} --kernel {params.kernels:q} "
            "--prepared {input.prepared:q} --embeddings {input.embeddings:q} {params.cased_sm} "
            "--encoding {params.encoding:q} --threads {threads} "
            "--out-dir {params.out_dir:q} > {log:q} 2>&1"

    rule anygram_gram:
        input:
            prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
            embeddings=lambda wc: embeddings_for(wc.dataset),
        output:
            ANYGRAM_GRAM_FILES,
        params:
            out_dir=lambda wildcards, output: os.path.dirname(output[0]),
            cased_sm=ANYGRAM_CASED_SM,
            encoding=ANYGRAM_ENCODING,
        log:
            f"{LOGS}/cache/anygram/{{dataset}}/{{kernel}}.log",
        benchmark:
            f"{BENCHMARKS}/anygram_gram/cache/anygram/{{dataset}}/{{kernel}}.tsv"
        wildcard_constraints:
            dataset="|".join(TOKENISED),
        conda:
            CONDA_ENV
        priority: 1  # Table 3's chain: Gram, SVC, table, significance
        threads: ANYGRAM["threads"]
        resources:
            mem_mb=6000,
            runtime=60,
        shell:
            "kernbench anygram-gram --dataset {wildcards.dataset} --kernel {wildcards.kernel} "
            "--prepared {input.prepared:q} --embeddings {input.embeddings:q} {params.cased_sm} "
            "--encoding {params.encoding:q} --threads {threads} "
            "--out-dir {params.out_dir:q} > {log:q} 2>&1"


# One SVC job per dataset and group of systems (anygram.<group>_systems on anygram.<group>_datasets): the prepared
# table and scikit-learn are loaded once for them. Its outputs are the group's systems, so each group has a rule of
# its own, anygram_svm_<group>.
for _group, _systems in anygram_plan.svm_groups(config).items():

    rule:
        name:
            f"anygram_svm_{_group}"
        input:
            prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
            grams=lambda wc, systems=_systems: [
                f for s in systems for f in anygram_gram_files(ANYGRAM_CACHE, wc.dataset, s, ANYGRAM)
            ],
        output:
            record=expand(f"{RESULTS}/{anygram_plan.KERNEL_RUN}.json", system=_systems, allow_missing=True),
            predictions=expand(
                f"{RESULTS}/{anygram_plan.KERNEL_RUN}.predictions.parquet", system=_systems, allow_missing=True
            ),
            confusion=expand(f"{RESULTS}/{anygram_plan.KERNEL_RUN}.confusion.csv", system=_systems, allow_missing=True),
        params:
            systems=_systems,
            gram_dirs=lambda wildcards, input: sorted({os.path.dirname(f) for f in input.grams}),
            settings=lambda wildcards, systems=_systems: [
                json.dumps(
                    {"C": ANYGRAM["C"], "normalize": ANYGRAM["normalize"], "encoding": anygram_kernel_encoding(s, ANYGRAM)},
                    sort_keys=True,
                )
                for s in systems
            ],
            seed=config["seed"],
            profile=config["profile"],
            # The output paths with {system} left for the command.
            run=lambda wc: expand(f"{RESULTS}/{anygram_plan.KERNEL_RUN}", dataset=wc.dataset, allow_missing=True)[0],
        log:
            f"{LOGS}/{anygram_plan.SVM_JOB.replace('{group}', _group)}.log",
        benchmark:
            f"{BENCHMARKS}/anygram_svm_{_group}/{anygram_plan.SVM_JOB.replace('{group}', _group)}.tsv"
        wildcard_constraints:
            dataset="|".join(TOKENISED),
        conda:
            CONDA_ENV
        priority: 1
        threads: ANYGRAM["threads"]  # the C grid of each setting is fitted in parallel threads
        resources:
            mem_mb=4000,
            runtime=60,
        shell:
            "kernbench anygram-svm --dataset {wildcards.dataset} --system {params.systems:q} "
            "--prepared {input.prepared:q} --grams {params.gram_dirs:q} --settings {params.settings:q} "
            "--seed {params.seed} --profile {params.profile:q} --threads {threads} --record {params.run:q}.json "
            "--predictions {params.run:q}.predictions.parquet --confusion {params.run:q}.confusion.csv > {log:q} 2>&1"


if ANYGRAM_PRIMAL:

    rule anygram_primal:
        input:
            prepared=f"{RESULTS}/prepared/{{dataset}}.parquet",
            embeddings=lambda wc: embeddings_for(wc.dataset),
        output:
            record=f"{RESULTS}/{anygram_plan.KERNEL_RUN}.json",
            predictions=f"{RESULTS}/{anygram_plan.KERNEL_RUN}.predictions.parquet",
            confusion=f"{RESULTS}/{anygram_plan.KERNEL_RUN}.confusion.csv",
        params:
            settings=lambda wildcards: json.dumps(
                {
                    "lam": ANYGRAM["lam"],
                    "lowercase_sm": ANYGRAM["lowercase_sm"],
                    "C": ANYGRAM["C"],
                    "normalize": ANYGRAM["normalize"],
                    "encoding": anygram_kernel_encoding(wildcards.system, ANYGRAM),
                },
                sort_keys=True,
            ),
            seed=config["seed"],
            profile=config["profile"],
        log:
            f"{LOGS}/{anygram_plan.KERNEL_RUN}.log",
        benchmark:
            f"{BENCHMARKS}/anygram_primal/{anygram_plan.KERNEL_RUN}.tsv"
        wildcard_constraints:
            dataset="|".join(TOKENISED),
            system="|".join(ANYGRAM_PRIMAL_SYSTEMS),
        conda:
            CONDA_ENV
        threads: ANYGRAM["threads"]
        resources:
            mem_mb=8000,
            runtime=60,
        shell:
            "kernbench anygram-primal --dataset {wildcards.dataset} --system {wildcards.system} "
            "--prepared {input.prepared:q} --embeddings {input.embeddings:q} --settings {params.settings:q} "
            "--seed {params.seed} --profile {params.profile:q} --threads {threads} --record {output.record:q} "
            "--predictions {output.predictions:q} --confusion {output.confusion:q} > {log:q} 2>&1"


rule anygram_benchmark:
    input:
        script="benchmarks/anygram_throughput.py",
        sst=f"{RESULTS}/prepared/sst.parquet",
        laptop=f"{RESULTS}/prepared/semeval14_laptop.parquet",
        embeddings=EMBEDDINGS,
    output:
        csv=f"{RESULTS}/benchmarks/anygram.csv",
    params:
        settings=anygram_plan.benchmark_settings(config, ANYGRAM["benchmark"]["dp_sentences"]),
    log:
        f"{LOGS}/benchmarks/anygram.log",
    benchmark:
        f"{BENCHMARKS}/anygram_benchmark/benchmarks/anygram.tsv"
    conda:
        CONDA_ENV
    priority: LONG_RUN_PRIORITY
    threads: ANYGRAM["benchmark"]["threads"]
    resources:
        mem_mb=8000,
        runtime=60,
    shell:
        "python {input.script:q} --sst {input.sst:q} --laptop {input.laptop:q} --embeddings {input.embeddings:q} "
        "--settings {params.settings:q} --threads {threads} --out {output.csv:q} > {log:q} 2>&1"


use rule anygram_benchmark as anygram_benchmark_all_pairs with:
    # Opt-in (no other target needs it): the DP on all pairs of the timed sentences, as the benchmark ran before.
    output:
        csv=f"{RESULTS}/benchmarks/anygram_all_pairs.csv",
    params:
        settings=anygram_plan.benchmark_settings(config, 0),
    log:
        f"{LOGS}/benchmarks/anygram_all_pairs.log",
    benchmark:
        f"{BENCHMARKS}/anygram_benchmark_all_pairs/benchmarks/anygram_all_pairs.tsv"


rule anygram_accuracy_figure:
    input:
        f"{RESULTS}/tables/anygram.csv",
    output:
        report(
            f"{RESULTS}/figures/anygram_accuracy.png",
            caption="anygram_accuracy.rst",
            category="Any-gram kernels (Table 3)",
            labels={"figure": "test accuracy per dataset and system"},
        ),
    log:
        f"{LOGS}/figures/anygram_accuracy.log",
    benchmark:
        f"{BENCHMARKS}/anygram_accuracy_figure/figures/anygram_accuracy.tsv"
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "kernbench figure anygram-accuracy --input {input:q} --out {output:q} > {log:q} 2>&1"


rule anygram_throughput_figure:
    input:
        f"{RESULTS}/benchmarks/anygram.csv",
    output:
        report(
            f"{RESULTS}/figures/anygram_throughput.png",
            caption="anygram_throughput.rst",
            category="Any-gram kernels (Table 3)",
            labels={"figure": "kernel throughput"},
        ),
    log:
        f"{LOGS}/figures/anygram_throughput.log",
    benchmark:
        f"{BENCHMARKS}/anygram_throughput_figure/figures/anygram_throughput.tsv"
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "kernbench figure throughput --input {input:q} --out {output:q} > {log:q} 2>&1"


# Sensitivity rows (tables/sensitivity.csv) of the kernel systems: lam, the SemEval dev split, casing of sm.
# The default side is the main table's predictions; only the alternatives are computed here.
for _key, (_choice, _datasets, _systems, _settings) in anygram_sensitivity_jobs(config).items():
    rule:
        name:
            f"anygram_sensitivity_{_key}"
        input:
            prepared=[f"{RESULTS}/prepared/{d}.parquet" for d in _datasets],
            embeddings=EMBEDDINGS,
            defaults=[
                f"{RESULTS}/{anygram_plan.KERNEL_RUN.format(dataset=d, system=s)}.{ext}"
                for d in _datasets
                for s in _systems
                for ext in ("json", "predictions.parquet")
            ],
        output:
            f"{RESULTS}/sensitivity/anygram/{_choice}.csv",
        params:
            choice=_key,
            datasets=_datasets,
            settings=json.dumps(_settings, sort_keys=True),
            # runs/anygram/<dataset>/<kind>/<file> -> runs/anygram
            runs_dir=lambda wildcards, input: os.path.dirname(os.path.dirname(os.path.dirname(input.defaults[0]))),
            resamples=config["uncertainty"]["resamples"],
            seed=config["seed"],
        log:
            f"{LOGS}/sensitivity/anygram/{_choice}.log",
        benchmark:
            f"{BENCHMARKS}/anygram_sensitivity/sensitivity/anygram/{_choice}.tsv"
        conda:
            CONDA_ENV
        threads: ANYGRAM["threads"]
        resources:
            mem_mb=6000,
            runtime=60,
        shell:
            "kernbench anygram-sensitivity --choice {params.choice} --datasets {params.datasets:q} "
            "--prepared {input.prepared:q} --embeddings {input.embeddings:q} --runs-dir {params.runs_dir:q} "
            "--settings {params.settings:q} --resamples {params.resamples} --seed {params.seed} "
            "--threads {threads} --out {output:q} > {log:q} 2>&1"
