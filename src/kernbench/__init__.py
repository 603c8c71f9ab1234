"""kernbench: reproducible re-runs of three text-classification papers."""

__version__ = "0.1.0"
