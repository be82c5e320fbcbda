"""Tests of analyzer/pipeline/."""
