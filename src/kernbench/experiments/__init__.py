"""Experiments: each turns a prepared dataset into metrics and predictions."""
