# The tables: each paper's comparison table, the paired comparisons, the results summary and the costs.
from kernbench.report.significance import COMPARISONS

SIGNIFICANCE_PAPERS = sorted(COMPARISONS)


rule tables:
    input:
        records=lambda wc: records_for_table(wc.table),
        paper_values="workflow/paper_results.yaml",
    output:
        csv=f"{RESULTS}/tables/{{table}}.csv",
        md=f"{RESULTS}/tables/{{table}}.md",
    params:
        md_subset=lambda wildcards: json.dumps(table_md_subset(wildcards.table), sort_keys=True),
        resamples=config["uncertainty"]["resamples"],
        seed=config["seed"],
        tolerance=lambda wildcards: (
            f"--tolerance {config['gap_tolerance'][wildcards.table]}" if wildcards.table in config["gap_tolerance"] else ""
        ),
    log:
        f"{LOGS}/tables/{{table}}.log",
    benchmark:
        f"{BENCHMARKS}/tables/tables/{{table}}.tsv"
    wildcard_constraints:
        table="|".join(config["tables"]),  # other files under tables/ (claim tables) come from their own rules
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "kernbench tables --records {input.records:q} --paper-values {input.paper_values:q} "
        "--csv {output.csv:q} --md {output.md:q} --md-subset {params.md_subset:q} "
        "--resamples {params.resamples} --seed {params.seed} {params.tolerance} > {log:q} 2>&1"


rule significance_paper:
    # One job per paper, so the papers' bootstraps run side by side; significance joins them.
    input:
        lambda wildcards: records_for_table(wildcards.paper),
    output:
        f"{RESULTS}/cache/significance/{{paper}}.json",
    params:
        levels=json.dumps(config["uncertainty"]["ordinal_xi"]),
        resamples=config["uncertainty"]["resamples"],
        seed=config["seed"],
    log:
        f"{LOGS}/tables/significance/{{paper}}.log",
    benchmark:
        f"{BENCHMARKS}/significance_paper/tables/significance/{{paper}}.tsv"
    wildcard_constraints:
        paper="|".join(SIGNIFICANCE_PAPERS),
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "kernbench significance --paper {wildcards.paper} --records {input:q} --levels {params.levels:q} "
        "--resamples {params.resamples} --seed {params.seed} --out {output:q} > {log:q} 2>&1"


rule significance:
    input:
        lambda wildcards: expand(f"{RESULTS}/cache/significance/{{paper}}.json", paper=compared_papers()),
    output:
        f"{RESULTS}/tables/significance.csv",
    log:
        f"{LOGS}/tables/significance.log",
    benchmark:
        f"{BENCHMARKS}/significance/tables/significance.tsv"
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench significance-merge --parts {input:q} --out {output:q} > {log:q} 2>&1"


rule results_summary:
    input:
        tables=expand(f"{RESULTS}/tables/{{table}}.csv", table=config["tables"]),
        significance=f"{RESULTS}/tables/significance.csv",
        sensitivity=lambda wildcards: sensitivity_table(),
        # The papers' other tables (claims), so the summary is written after them.
        extra_tables=lambda wildcards: sorted(t for t in paper_outputs() if t.endswith(".csv") and "/tables/" in t),
    output:
        f"{RESULTS}/results.md",
    params:
        tables_dir=lambda wildcards, input: os.path.dirname(input.significance),
        levels=json.dumps(config["uncertainty"]["ordinal_xi"]),
        profile=config["profile"],
        gap_tolerance=json.dumps(config["gap_tolerance"], sort_keys=True),
    log:
        f"{LOGS}/tables/results_summary.log",
    benchmark:
        f"{BENCHMARKS}/results_summary/tables/results_summary.tsv"
    conda:
        CONDA_ENV
    priority: COMBINING_PRIORITY
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench results-summary --tables-dir {params.tables_dir:q} --levels {params.levels:q} "
        "--profile {params.profile:q} --gap-tolerance {params.gap_tolerance:q} --sensitivity {input.sensitivity:q} "
        "--out {output:q} "
        "> {log:q} 2>&1"


rule costs:
    # Last: reads the benchmark files of every other job of the run.
    input:
        tables=expand(f"{RESULTS}/tables/{{table}}.csv", table=config["tables"]),
        mlflow=f"{RESULTS}/tracking/mlflow_runs.tsv",
        extras=lambda wildcards: extra_targets(),
    output:
        csv=f"{RESULTS}/costs.csv",
        chain=f"{RESULTS}/costs_chain.csv",
        md=f"{RESULTS}/costs.md",
    params:
        results_dir=lambda wildcards, output: os.path.dirname(output.csv),
    log:
        f"{LOGS}/costs.log",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench costs {params.results_dir:q} --csv {output.csv:q} --chain-csv {output.chain:q} --md {output.md:q} "
        "> {log:q} 2>&1"
