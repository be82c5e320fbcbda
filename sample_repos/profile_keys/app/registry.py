from app.npu_backend import NpuBackend

BACKENDS = {}


def register(group, name):
    def wrap(fn):
        BACKENDS[name] = fn
        return fn

    return wrap


@register("attention", "cuda")
def cuda_backend():
    return "cuda"


@register("attention", "npu")
def npu_backend():
    return NpuBackend()


TABLE = {
    "cuda": "cuda",
    "npu": NpuBackend,
}


class Handlers:
    table = {}

    @classmethod
    def add(cls, name, fn):
        cls.table[name] = fn


Handlers.add("cuda", cuda_backend)
Handlers.add("npu", npu_backend)
