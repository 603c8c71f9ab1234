"""``kernbench`` command line: the entry point every workflow rule calls, and the user's commands."""

from __future__ import annotations

import argparse
import functools
import json
import logging
import sys
import textwrap
import time
from pathlib import Path

from kernbench.errors import KernbenchError

log = logging.getLogger("kernbench")


def _cmd_fetch(args) -> None:
    from kernbench.data.fetch import fetch_dataset
    from kernbench.data.registry import raw_dataset

    paths = fetch_dataset(
        raw_dataset(args.dataset),
        mirror=Path(args.mirror),
        dest_dir=Path(args.raw_dir),
        allow_download=not args.no_download,
        timeout=args.timeout,
    )
    log.info("fetched and verified %d file(s) of %s", len(paths), args.dataset)


def _cmd_prepare(args) -> None:
    from kernbench.data.prepare import prepare_dataset, subsample
    from kernbench.fileio import write_parquet_atomic

    frame = prepare_dataset(args.dataset, args.raw_dir, dev_fraction=args.dev_fraction, seed=args.seed)
    if args.subsample:
        frame = subsample(frame, json.loads(args.subsample), seed=args.seed)
    write_parquet_atomic(args.out, frame)
    log.info("%s: %s rows by split", args.dataset, frame["split"].value_counts().sort_index().to_dict())


def _cmd_embeddings(args) -> None:
    import pandas as pd

    from kernbench.data import embeddings

    tokens = [t for path in args.prepared for toks in pd.read_parquet(path, columns=["tokens"])["tokens"] for t in toks]
    cased = embeddings.SOURCES[args.source]
    if args.source == "glove6b50d":
        words, vectors = embeddings.load_glove_6b_50d()
    else:
        from kernbench.data.fetch import fetch_file
        from kernbench.data.registry import Download, RawFile

        entry = RawFile(f"embeddings/{Path(args.url).name}", args.size, args.sha256, (Download(args.url),))
        archive = fetch_file(
            entry, mirror=Path(args.mirror), dest_dir=Path(args.raw_dir), source=f"GloVe vectors from {args.url}"
        )
        keys = {embeddings.lookup_key(t, cased=cased) for t in tokens}
        words, vectors = embeddings.load_glove_text(archive, keys, dim=args.dim)
    vocabulary, matrix, found = embeddings.cut_to_vocabulary(tokens, words, vectors, cased=cased)
    embeddings.save_embeddings(args.out, words=vocabulary, vectors=matrix, found=found, source=args.source)
    log.info(
        "%s (%s): %d word types, %.1f%% with a pre-trained vector (others get the zero vector)",
        args.source,
        "cased" if cased else "uncased",
        len(vocabulary),
        100.0 * found.mean() if len(found) else 0.0,
    )


def _cmd_baseline(args) -> None:
    import argparse

    import pandas as pd

    from kernbench.baselines import run_baseline
    from kernbench.catalog import catalog
    from kernbench.runs import paths_per_run, write_run

    spec = catalog()[args.dataset]
    paths = paths_per_run(args, ("record", "predictions"), "system", args.system, command="baseline")
    params = json.loads(args.params)
    frame = pd.read_parquet(args.prepared)
    for system in args.system:
        started = time.perf_counter()
        result = run_baseline(spec, frame, system=system, params=params, seed=args.seed)
        elapsed = time.perf_counter() - started
        run_params = {**params, "seed": args.seed, "profile": args.profile, "chosen": result.chosen}
        record = write_run(
            argparse.Namespace(**{**vars(args), **paths[system]}),
            paper=spec.paper,
            table="baselines",
            dataset=spec.name,
            system=system,
            key_params={**params, "seed": args.seed, "profile": args.profile},
            params=run_params,
            rows=result.rows,
            predictions=result.predictions,
            timings={"fit_predict": elapsed},
        )
        log.info("%s %s: %s", spec.name, system, record["metrics"])


def version_text() -> str:
    """``kernbench <version>``, with the commit it runs from (``git describe``) when run from a git checkout.

    Returns
    -------
    str
        ``kernbench 0.1.0 (commit 84d112d)`` in a checkout (``-dirty`` with uncommitted changes),
        ``kernbench 0.1.0`` in an installed copy.
    """
    import subprocess
    from importlib.metadata import version

    text = f"kernbench {version('kernbench')}"
    source = Path(__file__).resolve().parent

    def git(*args):
        try:
            done = subprocess.run(["git", "-C", str(source), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    # Only the checkout's own src/kernbench: a copy installed into a virtualenv inside a checkout is not it.
    if git("rev-parse", "--show-prefix") != "src/kernbench/":
        return text
    described = git("describe", "--always", "--dirty", "--abbrev=12")
    return f"{text} (commit {described})" if described else text


class _VersionAction(argparse.Action):
    """``--version``: computed when asked for, so that building the parser runs no git command."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``kernbench`` command."""
    from kernbench.runs import add_input_arguments, add_plumbing, add_run_arguments

    parser = argparse.ArgumentParser(
        prog="kernbench",
        description="Re-runs of three text-classification papers. `snakemake` runs the workflow;\n"
        "these commands inspect and compare its results.",
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the epilog is wrapped below, keeping names whole
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="print the kernbench version and the commit it runs from, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = add_plumbing(sub, "fetch", "copy the raw files of a dataset from the mirror (or download them) and verify sha256")
    p.add_argument("dataset", help="dataset name, as in config.yaml's datasets (semeval14_laptop, sst, a catalog entry)")
    p.add_argument("--mirror", required=True, help="raw-data mirror directory (config data.mirror)")
    p.add_argument("--raw-dir", required=True, help="directory of the fetched raw files")
    p.add_argument("--no-download", action="store_true",
                   help="fail rather than download a file missing from the mirror")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds before a download gives up")
    p.set_defaults(func=_cmd_fetch)

    p = add_plumbing(sub, "prepare", "parse raw files into <name>.parquet")
    p.add_argument("dataset", help="dataset name, as in config.yaml's datasets")
    p.add_argument("--raw-dir", required=True, help="directory of the fetched raw files")
    p.add_argument("--out", required=True, help="prepared dataset .parquet to write")
    p.add_argument("--dev-fraction", type=float, required=True,
                   help="share of the training data held out as dev (corpora without a dev split)")
    p.add_argument("--seed", type=int, required=True, help="seed of the dev split and the subsample")
    p.add_argument("--subsample", default="", help="JSON {split: max rows}")
    p.set_defaults(func=_cmd_prepare)

    p = add_plumbing(sub, "embeddings", "cut pre-trained embeddings to the corpora's vocabulary")
    p.add_argument("--prepared", nargs="+", required=True, help="prepared dataset .parquet (kernbench prepare)")
    p.add_argument("--source", choices=["glove6b50d", "glove42b300d", "glove840b300d"], required=True,
                   help="pre-trained vectors (config embeddings.source)")
    p.add_argument("--out", required=True, help="embeddings .npz to write")
    p.add_argument("--url", default="", help="download URL of the vectors (other than glove6b50d)")
    p.add_argument("--sha256", default="", help="sha256 of the downloaded archive")
    p.add_argument("--size", type=int, default=0, help="size in bytes of the downloaded archive")
    p.add_argument("--dim", type=int, default=300, help="dimension of the vectors")
    p.add_argument("--mirror", default="", help="raw-data mirror directory (config data.mirror)")
    p.add_argument("--raw-dir", default="", help="directory of the fetched raw files")
    p.set_defaults(func=_cmd_embeddings)

    p = add_plumbing(sub, "baseline", "run Triv / BoW-TFIDF baselines of a dataset and write their run records")
    add_input_arguments(p, "--dataset")
    p.add_argument("--system", required=True, nargs="+",
                   help="system names, as in the paper's table; with several, the output paths hold {system}")
    add_input_arguments(p, "--prepared")
    p.add_argument("--params", required=True, help="JSON parameters")
    add_run_arguments(p)
    p.set_defaults(func=_cmd_baseline)

    for module in _command_modules():
        module.register(sub)
    plumbing = sorted(name for name, p in sub.choices.items() if p.get_default("plumbing"))
    parser.epilog = textwrap.fill(
        f"Run by the workflow's rules (each has its own --help): {', '.join(plumbing)}.",
        width=79, break_on_hyphens=False, break_long_words=False,
    )
    return parser


@functools.cache
def cached_parser() -> argparse.ArgumentParser:
    """:func:`build_parser`, built once per process."""
    return build_parser()


def _command_modules():
    """Modules that add subcommands through ``register(subparsers)``: the generic layers', then each paper's."""
    import importlib

    from kernbench.papers import PAPERS

    names = ["kernbench.report.commands", *(m for paper in PAPERS.values() for m in paper.command_modules)]
    return [importlib.import_module(name) for name in names]


def main(argv: list[str] | None = None) -> int:
    """Run the ``kernbench`` command ``argv`` (default: ``sys.argv[1:]``); return the process exit code.

    This is the ``kernbench`` entry point.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    args = cached_parser().parse_args(argv)
    try:
        args.func(args)
    except KernbenchError as exc:
        print(f"kernbench {args.command}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
