"""Parsers that turn the raw corpora into prepared data frames."""

#: The splits of every prepared dataset, in order.
SPLITS = ("train", "dev", "test")
