class RocmBackend:
    pass
