# The pages of `snakemake --report <results_dir>/report.html`: every table as HTML, results.md on the front page.
import logging

from kernbench.report.missing_metadata import MissingMetadataNote
from kernbench.report.pages import table_description


FRONT_PAGE = os.path.abspath(f"{RESULTS}/report/front.rst")


# Snakemake warns once per output whose job metadata is not in this checkout; one note instead.
logging.getLogger("snakemake.logging").addFilter(MissingMetadataNote(RESULTS))


rule report_table:
    input:
        lambda wc: f"{RESULTS}/{wc.table}.csv" if wc.table in COST_TABLES else f"{RESULTS}/tables/{wc.table}.csv",
    output:
        report(
            f"{RESULTS}/report/{{table}}.html",
            caption="../report/table_page.rst",
            category="Tables",
            labels=lambda wildcards: {"table": wildcards.table},
        ),
    params:
        description=lambda wildcards: table_description(wildcards.table, config),
    log:
        f"{LOGS}/report/{{table}}.log",
    wildcard_constraints:
        table="|".join(report_tables()),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench report-table --csv {input:q} --name {wildcards.table} --out {output:q} > {log:q} 2>&1"


rule report_front:
    input:
        intro="workflow/report/workflow.rst",
        results=f"{RESULTS}/results.md",
    output:
        f"{RESULTS}/report/front.rst",
    log:
        f"{LOGS}/report/front.log",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench report-front --intro {input.intro:q} --results {input.results:q} --out {output:q} > {log:q} 2>&1"


rule report_results:
    input:
        f"{RESULTS}/results.md",
    output:
        report(
            f"{RESULTS}/report/results.html",
            caption="../report/summary_page.rst",
            category="Results",
            labels={"page": "the tables beside the papers and the gaps"},
        ),
    log:
        f"{LOGS}/report/results.log",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "kernbench report-results --results {input:q} --out {output:q} > {log:q} 2>&1"
