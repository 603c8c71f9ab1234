# The pages of `snakemake --report <results_dir>/report.html`: every table as HTML, results.md on the front page.
# Included last: the table list is read from EXTRA_TARGETS, which the other rule files fill.
import logging


REPORT_TABLES = [
    *config["tables"],
    *sorted(os.path.basename(t)[: -len(".csv")] for t in EXTRA_TARGETS if t.endswith(".csv") and "/tables/" in t),
    "costs",
]
REPORT_PAGES = [f"{RESULTS}/report/{table}.html" for table in REPORT_TABLES] + [f"{RESULTS}/report/front.rst"]
FRONT_PAGE = os.path.abspath(f"{RESULTS}/report/front.rst")


def report_front_page():
    """The report's front page: results.md once the run has written it, else the bare introduction."""
    return FRONT_PAGE if os.path.exists(FRONT_PAGE) else "workflow/report/workflow.rst"


def table_csv(wildcards):
    return f"{RESULTS}/costs.csv" if wildcards.table == "costs" else f"{RESULTS}/tables/{wildcards.table}.csv"


class _MissingMetadataNote(logging.Filter):
    """One line instead of a warning per output whose job metadata is not in this checkout's .snakemake.

    A results directory made by another checkout (or copied) has no metadata here. The report takes
    every file from the results directory; the metadata only feeds its run-time panel, and costs.csv
    (in the report) carries the jobs' times.
    """

    said = False

    def filter(self, record):
        if not str(record.msg).startswith("Missing metadata for file"):
            return True
        if self.said:
            return False
        self.said = True
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.msg, record.args = (
            f"Snakemake's job metadata for {RESULTS} is not in this checkout (it was made elsewhere): "
            "the report holds every table and figure, its run-time panel lacks those jobs "
            "(the Tables category has the cost of every rule).",
            (),
        )
        return True


logging.getLogger("snakemake.logging").addFilter(_MissingMetadataNote())


rule report_table:
    input:
        table_csv,
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
