ATTENTION_BACKENDS = {}


def register_attention_backend(name):
    def decorator(fn):
        ATTENTION_BACKENDS[name] = fn
        return fn

    return decorator


@register_attention_backend("triton")
def create_triton_backend(runner):
    from minisgl.srt.layers.attention.triton_backend import TritonAttnBackend

    return TritonAttnBackend(runner)


@register_attention_backend("fa3")
def create_flashattention_v3_backend(runner):
    from minisgl.srt.layers.attention.flashattention_backend import FlashAttentionBackend

    return FlashAttentionBackend(runner, fa_impl_ver=3)


@register_attention_backend("flashmla")
def create_flashmla_backend(runner):
    from minisgl.srt.layers.attention.flashmla_backend import FlashMLABackend

    return FlashMLABackend(runner)
