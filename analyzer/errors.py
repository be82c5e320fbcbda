"""Errors about the user's input that the CLI maps to exit codes (see ``analyzer.cli.main``).

Kept in a module of their own, free of heavy imports, so the command line can catch them
without loading the analysis stages. ``DiscoveryError`` and ``ProfileError`` live with the
stages that raise them (both light).
"""


class ScanError(Exception):
    """Input the scan cannot work on (missing path, nothing to analyze)."""


class RootError(Exception):
    """A root name that matches nothing, or more than one module."""
