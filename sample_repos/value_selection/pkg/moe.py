from pkg.backends import get_backend


class DefaultMoE:
    pass


def moe_impl():
    if get_backend().is_npu_fuse():
        from pkg.npu_moe import NpuMoE

        return NpuMoE
    if get_backend().is_deepep():
        return DefaultMoE
    return DefaultMoE


try:
    from pkg import npu_ext  # noqa: F401  (built only for NPU)
except ImportError:
    npu_ext = None
