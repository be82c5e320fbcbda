"""Tests of analyzer/util/."""
