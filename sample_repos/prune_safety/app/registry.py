BACKENDS = {}


def register_backend(name):
    def wrap(fn):
        BACKENDS[name] = fn
        return fn
    return wrap


@register_backend("cuda")
def create_cuda_backend():
    from app.cuda_backend import CudaBackend

    return CudaBackend()


@register_backend("npu")
def create_npu_backend():
    from app.npu_backend import NpuBackend

    return NpuBackend()
