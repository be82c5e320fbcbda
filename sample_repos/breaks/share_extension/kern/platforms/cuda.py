class CudaPlatform:
    def import_kernels(self):
        from kern import common_ops  # noqa: F401
