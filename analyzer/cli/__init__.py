"""Command line: click commands mapping options onto the pipeline; exit codes mapped once.

``depgraph`` is ``analyzer.cli.main:main``."""
