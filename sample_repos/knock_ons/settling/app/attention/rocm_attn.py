class RocmBackend:
    name = "rocm"
