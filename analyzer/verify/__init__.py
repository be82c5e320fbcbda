"""Verify stage: checks of a scanned (pruned) tree, alone and against the baseline a manifest
recorded of the original."""
