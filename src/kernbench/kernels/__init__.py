"""Kernel functions between sentences or documents, one module per kernel family."""
