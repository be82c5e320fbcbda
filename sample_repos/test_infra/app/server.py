from app.platform import is_npu


def serve():
    if is_npu():
        from app.npu_backend import NpuBackend

        return NpuBackend()
    return "ok"
