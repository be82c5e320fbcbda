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
