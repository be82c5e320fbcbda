from app import kern_ops  # noqa: F401
