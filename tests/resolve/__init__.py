"""Tests of analyzer/resolve/."""
