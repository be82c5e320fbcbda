"""Tests of analyzer/graph/."""
