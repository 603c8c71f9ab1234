"""Kaljahi & Foster, *Any-gram kernels for sentence classification*: Table 3 (kernels and LSTMs)."""
