"""Tests of analyzer/extract/."""
