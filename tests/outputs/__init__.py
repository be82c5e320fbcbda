"""Tests of analyzer/outputs/."""
