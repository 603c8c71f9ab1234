# The pages of `snakemake --report <results_dir>/report.html`: every table as HTML, results.md on the front page.
# Included last: the table list is read from EXTRA_TARGETS, which the other rule files fill.
import logging

from kernbench.report.missing_metadata import MissingMetadataNote


REPORT_TABLES = [
    *config["tables"],
    *sorted(os.path.basename(t)[: -len(".csv")] for t in EXTRA_TARGETS if t.endswith(".csv") and "/tables/" in t),
    "costs",
]
REPORT_PAGES = [f"{RESULTS}/report/{table}.html" for table in REPORT_TABLES] + [f"{RESULTS}/report/front.rst"]
FRONT_PAGE = os.path.abspath(f"{RESULTS}/report/front.rst")


# Snakemake warns once per output whose job metadata is not in this checkout; one note instead.
logging.getLogger("snakemake.logging").addFilter(MissingMetadataNote(RESULTS))


rule report_table:
    input:
        lambda wc: f"{RESULTS}/costs.csv" if wc.table == "costs" else f"{RESULTS}/tables/{wc.table}.csv",
    output:
        report(
            f"{RESULTS}/report/{{table}}.html",
            caption="../report/table_page.rst",
            category="Tables",
            labels=lambda wildcards: {"table": wildcards.table},
        ),
    log:
        f"{LOGS}/report/{{table}}.log",
    wildcard_constraints:
        table="|".join(REPORT_TABLES),
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
