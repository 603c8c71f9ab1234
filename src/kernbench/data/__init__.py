"""Parsers that turn the raw corpora into prepared data frames."""
