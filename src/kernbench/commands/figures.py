"""``kernbench figure``: report figures drawn from finished tables and benchmarks."""

from __future__ import annotations

from kernbench.commands import add_plumbing


def _cmd_figure(args) -> None:
    from kernbench import figures

    {"anygram-accuracy": figures.anygram_accuracy, "throughput": figures.throughput}[args.kind](args.input, args.out)


def register(subparsers) -> None:
    """Add the ``figure`` subcommand."""
    p = add_plumbing(subparsers, "figure", "draw a report figure from a table or benchmark CSV")
    p.add_argument("kind", choices=["anygram-accuracy", "throughput"], help="which figure")
    p.add_argument("--input", required=True, help="tables/anygram.csv or benchmarks/anygram.csv")
    p.add_argument("--out", required=True, help="PNG to write")
    p.set_defaults(func=_cmd_figure)
