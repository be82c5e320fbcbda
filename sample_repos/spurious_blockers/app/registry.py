_BACKENDS = {}


def register_backend(name):
    def wrap(fn):
        _BACKENDS[name] = fn
        return fn
    return wrap


@register_backend("triton")
def create_triton():
    from app.triton_backend import TritonBackend

    return TritonBackend()


@register_backend("fmla")
def create_fmla():
    from app.fmla_backend import FmlaBackend

    return FmlaBackend()


def create(name):
    return _BACKENDS[name]()
