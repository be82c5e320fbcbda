BACKENDS = {}


def register_backend(name):
    def wrap(fn):
        BACKENDS[name] = fn
        return fn
    return wrap


@register_backend("triton")
def create_triton_backend():
    from app.triton import TritonBackend

    return TritonBackend()


@register_backend("fa3")
def create_fa3_backend():
    from app.fa3 import FA3Backend

    return FA3Backend()
