def accel_init():
    from app.rocm_backend import RocmBackend

    return RocmBackend()
