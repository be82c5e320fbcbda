"""Resolve stage: Python names, imports and dotted strings -> modules and symbols; CMake
variables, targets and sources evaluated against the tree."""
