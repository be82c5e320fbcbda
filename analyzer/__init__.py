"""depgraph: a static dependency-graph analyzer and dead-code reporter for ML monorepos.

Pipeline: discover -> extract (per file, per language) -> resolve -> graph -> liveness
-> deletion plan -> report / manifest.
"""

__version__ = "0.1.0"
