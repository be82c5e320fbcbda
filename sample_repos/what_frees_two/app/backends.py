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


@register_backend("fa3")
def create_fa3_backend():
    from app.fa3_backend import FA3Backend

    return FA3Backend()


@register_backend("hybrid")
def create_hybrid_backend():
    from app.hybrid_backend import HybridBackend

    return HybridBackend()
