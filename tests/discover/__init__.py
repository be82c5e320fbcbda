"""Tests of analyzer/discover/."""
