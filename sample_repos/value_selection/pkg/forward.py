from enum import IntEnum, auto


class Method(IntEnum):
    MHA = auto()
    MLA = auto()
    MLA_NPU = auto()


def run(method):
    if method == Method.MHA:
        return "mha"
    elif method is Method.MLA_NPU:
        from pkg.npu_mla import npu_forward

        return npu_forward()
    if method in (Method.MLA_NPU,):
        from pkg.npu_mla import npu_prepare

        npu_prepare()
    return "mla"
