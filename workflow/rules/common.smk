import json

import copy
import os
import shlex
import sys

from snakemake.utils import update_config, validate

from kernbench.catalog import BASELINE_SYSTEMS, Catalog, papers_of_tasks
from kernbench.catalog_config import ENV_VAR as CATALOG_ENV_VAR
from kernbench.closing_message import closing_message
from kernbench.data import SPLITS
from kernbench.paper import package_file, resolve as resolve_reference
from kernbench.papers import PAPERS
from kernbench.config_check import check_names, check_results_dir, integers_as_int, typed_overrides
from kernbench.config_schema import check_top_level_keys, composed_schema, fragment_paths
from kernbench.provenance import config_hash
from kernbench.workflow_lock import claim_results_dir, clear_stale_locks, record_owner, release_results_dir, unclaimed_locks
from kernbench.workflow_signals import interruption_message, remember_interrupts


# The config's schema: the keys the papers share (workflow/schemas/config.schema.yaml) and each paper's sections (the
# fragment its package declares, kernbench.paper.Paper.config_schema), composed into one.
CONFIG_SCHEMA = composed_schema(os.path.join(workflow.basedir, "workflow", "schemas", "config.schema.yaml"), PAPERS)


def _apply_profile(cfg):
    """Merge the selected profile's section into the config; --config values still win.

    Nested --config values (`anygram="{lam: 0.5}"`) arrive as strings and are typed by the schema;
    a partial section is merged over the defaults.
    """
    profile = cfg.get("profile", "full")
    sections = cfg.get("profiles", {})
    if profile not in sections:
        raise ValueError(f"config: profile {profile!r} has no section under 'profiles' ({', '.join(sections)})")
    merged = copy.deepcopy(cfg)
    update_config(merged, sections[profile])
    update_config(merged, typed_overrides(workflow.config_settings.overwrite_config, CONFIG_SCHEMA))
    return merged


config.update(_apply_profile(config))
# A key that no schema file describes is refused by name; each file then checks its own keys (Snakemake resolves a
# file's `$ref` against that file).
check_top_level_keys(config, CONFIG_SCHEMA)
validate(config, schema="../schemas/config.schema.yaml")
for _fragment in fragment_paths(PAPERS):
    validate(config, schema=str(_fragment))
# JSON Schema takes 1000.0 (`--config seed=1e3`) as an integer; the commands need it written 1000.
config.update(integers_as_int(config, CONFIG_SCHEMA))

# Every dataset, built once: the registry's and the config's own (`catalog`, checked; relative paths are relative to
# the working directory); the jobs read the catalog from the environment. The config's lists of names (datasets,
# tables, each paper's systems and datasets) name what the registries declare (the schema checks only their types).
CATALOG = Catalog.from_config(config["catalog"], base_dir=os.getcwd(), papers_of_tasks=papers_of_tasks(PAPERS))
check_names(config, "datasets", CATALOG.names(), "datasets (built-in or under `catalog`)")
check_names(config, "tables", ["baselines", *PAPERS], "tables of the baselines and the papers")
check_names(config, "gap_tolerance", [name for name, paper in PAPERS.items() if paper.headline_metric],
            "tables with the paper's values to compare")
for _paper in PAPERS.values():
    if _paper.config_names:
        for _key, (_valid, _what) in resolve_reference(_paper.config_names)(CATALOG).items():
            check_names(config, _key, _valid, _what)
os.environ[CATALOG_ENV_VAR] = CATALOG.to_environment()
DATASETS = CATALOG
TOKENISED = CATALOG.tokenised

check_results_dir(config["results_dir"])
RESULTS = config["results_dir"].rstrip("/")
LOGS = f"{RESULTS}/logs"
# Wall time, CPU time and peak memory of every job (Snakemake benchmark files), read by `kernbench costs`.
BENCHMARKS = f"{RESULTS}/benchmarks/jobs"

# Priority of the small steps that combine finished runs (each paper's table, comparisons, figures and MLflow job,
# the sensitivity table, the summary): ahead of the runs that can wait, so that what follows them starts early
# (docs/operations.md, "Scheduling on two cores").
COMBINING_PRIORITY = 1
# Among the runs that can wait, the long ones (minutes each: the LSTM retraining, the ordinal runs, the Fisher
# reruns that rebuild features, the throughput benchmark) start before the short ones, so that the run does not
# end on one long job with the other core idle.
LONG_RUN_PRIORITY = 0.5


# Wildcards that mean the same thing in every rule, with their domains from the registries. The rules' own blocks
# narrow dataset, system, paper, table and choice to what each rule produces; that also tells apart the rules that
# share a path pattern. A paper's own wildcards are constrained in its rule files.
wildcard_constraints:
    split="|".join(SPLITS),
    seed=r"\d+",
    tile=r"\d+",


# Jobs read this to stamp their run records; an environment variable, not a param, so that a
# config change elsewhere does not invalidate every job.
os.environ["KERNBENCH_CONFIG_HASH"] = config_hash(config)

# A Snakemake killed with SIGKILL (or by a lost terminal) leaves its locks behind; the locks of a
# process that no longer runs on this host are removed here, so rerunning the same command resumes.
SNAKEMAKE_LOCKS = os.path.abspath(os.path.join(".snakemake", "locks"))
RUN_RECORD = []  # this run's record in <results_dir>/.kernbench-runs, once claimed
for _message in clear_stale_locks(SNAKEMAKE_LOCKS):
    print(f"kernbench: {_message}", file=sys.stderr)


onstart:
    # The lock files Snakemake took for this run: those in the lock directory that no live run claims.
    _taken = unclaimed_locks(SNAKEMAKE_LOCKS)
    if _taken:
        record_owner(SNAKEMAKE_LOCKS, _taken)
    # Snakemake's locks are per checkout; a second clone writing into the same results_dir is refused here.
    RUN_RECORD.append(claim_results_dir(RESULTS, os.getcwd()))
    remember_interrupts()


onsuccess:
    release_results_dir(RUN_RECORD[0] if RUN_RECORD else None)
    print(
        closing_message(
            RESULTS,
            profile=config["profile"],
            tracking_uri=config["mlflow"]["tracking_uri"],
            bin_dir=os.path.dirname(sys.executable),
        ),
        end="",
    )


onerror:
    release_results_dir(RUN_RECORD[0] if RUN_RECORD else None)
    if interruption_message():
        print(f"kernbench: {interruption_message()}", file=sys.stderr)


# Rules call the `kernbench` entry point installed beside the Python running Snakemake,
# so the workflow works from an unactivated virtualenv too.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")


envvars:
    "PATH",
    "KERNBENCH_CONFIG_HASH",
    "KERNBENCH_CATALOG",


# The software of every job, used with --software-deployment-method conda; an absolute path, because the
# files naming it lie in different directories (workflow/rules/, the paper packages).
CONDA_ENV = os.path.join(workflow.basedir, "environment.yml")

EMBEDDINGS = f"{RESULTS}/prepared/embeddings_{config['embeddings']['source']}.npz"


def catalog_embeddings(dataset):
    """A catalog dataset's own embeddings file, cut to its vocabulary (the shared file stays as it is)."""
    return f"{RESULTS}/prepared/{dataset}.embeddings_{config['embeddings']['source']}.npz"


def embeddings_for(dataset):
    """The embeddings file the kernels and LSTMs of ``dataset`` read."""
    return catalog_embeddings(dataset) if dataset in CATALOG.entries else EMBEDDINGS


def raw_files(dataset):
    """Paths of the fetched raw files of one dataset."""
    return [f"{RESULTS}/raw/{entry.path}" for entry in CATALOG[dataset].raw.files]


def raw_root(files, dataset):
    """The raw-files root directory, recovered from the first fetched file of ``dataset``."""
    return str(files[0])[: -len(CATALOG[dataset].raw.files[0].path) - 1]


def prepared(dataset):
    return f"{RESULTS}/prepared/{dataset}.parquet"


def baseline_runs():
    """(paper, dataset, system) of every baseline the config asks for."""
    return [
        (DATASETS[d].paper, d, system) for d in config["datasets"] for system in BASELINE_SYSTEMS[DATASETS[d].task]
    ]


# A baseline's run files without their suffix.
BASELINE_RUN = f"{RESULTS}/runs/{{paper}}/{{dataset}}/{{system}}"


def run_record(paper, dataset, system):
    return BASELINE_RUN.format(paper=paper, dataset=dataset, system=system) + ".json"


# The job that runs the baselines of a dataset: its log and benchmark path.
BASELINE_JOB = "runs/{paper}/{dataset}/baselines"


# What each paper's planner (kernbench.papers.<paper>.plan) asks the workflow to build under this config.
PAPER_TARGETS = {name: resolve_reference(paper.targets)(config, RESULTS) for name, paper in PAPERS.items()}


def records_for_table(table):
    """The run records behind ``tables/<table>.csv``."""
    records = [run_record(*run) for run in baseline_runs()] if table == "baselines" else []
    if table in PAPER_TARGETS:
        records = PAPER_TARGETS[table].records
    if not records:
        raise ValueError(f"no run records for table {table!r} under this config")
    return sorted(set(records))


def table_md_subsets():
    """Row filters of the tables' markdown, ``{table: {column: [values]}}`` (the csv keeps every row)."""
    return {table: targets.md_subset for table, targets in PAPER_TARGETS.items() if targets.md_subset}


def table_md_subset(table):
    """Row filter of one table's markdown (empty: every row)."""
    return table_md_subsets().get(table, {})


def sensitivity_parts():
    """Per-choice CSV files of the sensitivity table, from every paper's planner."""
    return sorted(part for targets in PAPER_TARGETS.values() for part in targets.sensitivity)


def paper_outputs():
    """The papers' final outputs beyond their tables: figures, claim tables, benchmark tables."""
    return [output for targets in PAPER_TARGETS.values() for output in targets.outputs]


def paper_rule_files():
    """Every paper's files of rules (``kernbench.paper.Paper.rules``, files of its package), in the registry's order."""
    return [str(package_file(rules, f"paper {name}: rules")) for name, paper in PAPERS.items() for rules in paper.rules]


def compared_papers():
    """The configured tables whose systems are compared pairwise (each a paper's), in sorted order.

    The baselines table is not one: its records would otherwise join a paper's systems of the same name.
    """
    return sorted(table for table in config["tables"] if table in PAPERS)


def sensitivity_table():
    """``tables/sensitivity.csv`` when the default target builds it (config ``sensitivity_table``), else nothing."""
    return [f"{RESULTS}/tables/sensitivity.csv"] if config["sensitivity_table"] else []


def extra_targets():
    """The final outputs besides the configured tables, MLflow, the costs and the report."""
    return [
        f"{RESULTS}/tables/significance.csv",
        *sensitivity_table(),
        *paper_outputs(),
        f"{RESULTS}/results.md",
    ]


# The run's cost tables (`kernbench costs`): per rule, and the critical chain; beside tables/, not in it.
COST_TABLES = ["costs", "costs_chain"]


def report_tables():
    """Tables with a page in the report: the configured ones, the other tables, and the cost tables."""
    others = [os.path.basename(t)[: -len(".csv")] for t in extra_targets() if t.endswith(".csv") and "/tables/" in t]
    return [*config["tables"], *sorted(others), *COST_TABLES]


def report_pages():
    """The pages of `snakemake --report`: one per table of :func:`report_tables`, results.md, and the front page."""
    return [f"{RESULTS}/report/{table}.html" for table in report_tables()] + [
        f"{RESULTS}/report/results.html", f"{RESULTS}/report/front.rst",
    ]


def get_final_output():
    """Every final output of the workflow (the default target): tables, summary, MLflow, costs, report pages."""
    return [
        *expand(f"{RESULTS}/tables/{{table}}.{{ext}}", table=config["tables"], ext=["csv", "md"]),
        f"{RESULTS}/tracking/mlflow_runs.tsv",
        EMBEDDINGS,
        *extra_targets(),
        f"{RESULTS}/costs.csv",
        *report_pages(),
    ]


#: The order in which the papers are logged (:attr:`kernbench.paper.Paper.tracking_rank`): each paper's job waits
#: for the one before it, so that only one process writes to the store at a time.
TRACKING_ORDER = sorted(PAPERS, key=lambda name: (PAPERS[name].tracking_rank, name))


def paper_records(paper):
    """The run records of ``paper`` that the configured tables need: its baselines and its own table's."""
    records = set()
    if "baselines" in config["tables"]:
        records |= {run_record(*run) for run in baseline_runs() if run[0] == paper}
    if paper in config["tables"] and paper in PAPER_TARGETS:
        records |= set(PAPER_TARGETS[paper].records)  # none where the config runs none of its datasets
    return sorted(records)


def tracked_papers():
    """The papers that have run records under this config, in :data:`TRACKING_ORDER`."""
    return [p for p in TRACKING_ORDER if paper_records(p)]


def paper_manifest(paper):
    """The manifest of `paper`'s track job, which lists the runs of the papers logged before it too."""
    return f"{RESULTS}/tracking/papers/{paper}.tsv"


def cost_inputs(paper):
    """``{record: {part: [job paths]}}`` of ``paper`` (:attr:`kernbench.paper.PaperTargets.cost_inputs`), and of its
    baselines, whose dataset's one job runs them all."""
    baselines = {
        run_record(*run): {"job": [BASELINE_JOB.format(paper=run[0], dataset=run[1])]}
        for run in baseline_runs()
        if run[0] == paper
    }
    return {**baselines, **(PAPER_TARGETS[paper].cost_inputs if paper in PAPER_TARGETS else {})}


def summary_tables():
    """The tables of the papers' MLflow summary runs: the configured ones, significance, sensitivity, claims."""
    return sorted({
        *expand(f"{RESULTS}/tables/{{table}}.csv", table=config["tables"]),
        *(t for t in extra_targets() if t.endswith(".csv") and os.path.basename(os.path.dirname(t)) == "tables"),
    })


def previous_manifest(paper):
    """The manifest of the paper logged before ``paper`` (none for the first)."""
    papers = tracked_papers()
    index = papers.index(paper)
    return [paper_manifest(papers[index - 1])] if index else []
