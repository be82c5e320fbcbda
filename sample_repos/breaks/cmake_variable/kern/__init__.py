from kern import common_ops  # noqa: F401
