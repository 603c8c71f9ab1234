"""Numbers as the markdown tables of ``results.md`` show them."""

from __future__ import annotations

import pandas as pd


def cell_text(value, low, high, digits=2, spread: str = "") -> str:
    """``value`` with its spread and ``[low, high]`` interval (none where ``low`` is NaN); "–" for a missing value."""
    if pd.isna(value):
        return "–"
    text = f"{value:.{digits}f}{spread}"
    return text if pd.isna(low) else f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def number_text(value, *, signed: bool = False) -> str:
    """``value`` with two decimals (a sign with ``signed``); "–" for a missing value."""
    if pd.isna(value):
        return "–"
    return f"{value:+.2f}" if signed else f"{value:.2f}"
