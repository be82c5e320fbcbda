"""Tests of analyzer/decide/."""
