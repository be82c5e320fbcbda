"""Tests of analyzer/cli/."""
