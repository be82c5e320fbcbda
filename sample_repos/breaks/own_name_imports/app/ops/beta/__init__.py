from app.ops.beta.kernels import shift

__all__ = ["shift"]
