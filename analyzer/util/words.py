"""Shared: numbers and counted nouns as every output writes them -- thousands separated
(``4,105``), a noun in the singular for one (``1 file``, ``2 files``)."""

from __future__ import annotations


def num(value: int) -> str:
    """``4105`` -> ``4,105``."""
    return f"{value:,}"


def count(value: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "file")`` -> ``1 file``; ``count(4105, "line")`` -> ``4,105 lines``."""
    return f"{value:,} {noun if value == 1 else plural or noun + 's'}"


def pairs(value: int, unknown: int) -> str:
    """TU x architecture pairs: ``12``; ``12+?`` when some TUs' architectures are not stated in
    the tree (their pairs cannot be counted); ``?`` when none are."""
    if not unknown:
        return num(value)
    return f"{num(value)}+?" if value else "?"


PAIRS_LEGEND = ("TU x arch: translation units times the CUDA architectures their target's "
                "CMake states; ? where the tree does not state them (from the environment)")
