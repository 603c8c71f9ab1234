"""Subcommands of the ``kernbench`` command, one module per experiment family.

Each module defines ``register(subparsers)``, which adds its subcommands;
:mod:`kernbench.cli` discovers the modules here by name.
"""
