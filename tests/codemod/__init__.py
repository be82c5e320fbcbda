"""Tests of analyzer/codemod/."""
