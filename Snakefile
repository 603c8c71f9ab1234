# kernbench: re-runs three text-classification papers on their real data.
#   snakemake -c2                          full profile into results/
#   snakemake -c2 --config profile=smoke results_dir=results-smoke

from snakemake.utils import min_version

from kernbench.config_check import check_yaml_file

min_version("9.0")

check_yaml_file("config.yaml")  # Snakemake's own message names neither the file nor the line


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/baselines.smk"


# Each paper's rules, from its registry entry (kernbench.paper.Paper.rules).
for _rules in paper_rule_files():

    include: _rules


include: "workflow/rules/tables.smk"
include: "workflow/rules/tracking.smk"
include: "workflow/rules/sensitivity.smk"
include: "workflow/rules/report.smk"


# results.md on the report's front page once a run has written it
report: FRONT_PAGE if os.path.exists(FRONT_PAGE) else "workflow/report/workflow.rst"


rule all:
    input:
        get_final_output(),
    default_target: True
