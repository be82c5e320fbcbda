"""Tests of analyzer/analysis/."""
