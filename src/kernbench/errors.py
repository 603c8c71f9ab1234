"""Exceptions raised for bad input, configuration and data."""


class KernbenchError(Exception):
    """Base class of every error kernbench reports to the user."""


class DataError(KernbenchError):
    """A raw or prepared data file is missing, corrupt or malformed.

    The message always names the file and, where it applies, the line or
    field that was wrong and what was expected.
    """


class FetchError(DataError):
    """A raw file could be neither taken from the mirror nor downloaded."""
