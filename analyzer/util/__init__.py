"""Shared helpers of every stage: checked cache files, pausing the cyclic garbage collector."""
