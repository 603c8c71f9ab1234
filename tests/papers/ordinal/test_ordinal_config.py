"""The ordinal paper's defaults that the text does not fix, as config.yaml sets them."""

from __future__ import annotations

import yaml

from tests.conftest import REPO_ROOT


def test_the_grid_of_a_runs_past_16_where_four_of_six_choices_sat():
    run = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())["ordinal"]["run"]
    # up to 16, dev chose the top in four of the six (dataset, method) cells; 32 and 64 let it stop inside
    assert run["a_grid"] == [0.5, 1, 2, 4, 8, 16, 32, 64]
    assert run["epsilon"] == 0.1 and run["nc_epsilon"] == 0.1  # Eq. 1's epsilon, and NC's the same
