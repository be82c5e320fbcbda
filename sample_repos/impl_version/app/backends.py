from app.backend import FlashAttentionBackend
from app.registry import register_backend


@register_backend("fa3")
def create_fa3_backend(runner):
    return FlashAttentionBackend(runner)


@register_backend("fa4")
def create_fa4_backend(runner):
    return FlashAttentionBackend(runner, fa_impl_ver=4)
