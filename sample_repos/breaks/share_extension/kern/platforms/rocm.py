class RocmPlatform:
    def import_kernels(self):
        import kern._rocm_C  # noqa: F401
