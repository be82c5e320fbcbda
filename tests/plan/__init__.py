"""Tests of analyzer/plan/."""
