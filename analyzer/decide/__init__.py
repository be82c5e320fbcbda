"""Decide stage, before the graph: guard folding, registries and the profile's facts -- what
the code decides at run time, decided from declared facts."""
