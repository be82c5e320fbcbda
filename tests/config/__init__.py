"""Tests of analyzer/config/."""
