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


@register_backend("flashmla")
def create_flashmla_backend():
    from app.flashmla_backend import FlashMLABackend

    return FlashMLABackend()


@register_backend("nsa")
def create_nsa_backend():
    from app.nsa_backend import NSABackend

    return NSABackend()
