"""minisgl: a small look-alike of an inference engine, for depgraph's tests."""

from minisgl.version import __version__

__all__ = ["__version__"]
