"""Tests of analyzer/verify/."""
