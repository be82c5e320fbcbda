from torch import nn

from pkg.platform import is_cuda, is_npu

_is_cuda = is_cuda()
_is_npu = is_npu()


class MultiPlatformOp(nn.Module):
    def __init__(self):
        super().__init__()
        self._forward_method = self.dispatch_forward()

    def forward(self, *args):
        return self._forward_method(*args)

    def forward_cuda(self, *args):
        raise NotImplementedError

    def forward_npu(self, *args):
        raise NotImplementedError

    def dispatch_forward(self):
        if _is_cuda:
            return self.forward_cuda
        elif _is_npu:
            return self.forward_npu
        return self.forward_cuda


class SiluAndMul(MultiPlatformOp):
    def forward_cuda(self, x):
        return x

    def forward_npu(self, x):
        from pkg.npu_kernels import npu_silu

        return npu_silu(x)

    def extra_repr(self):
        return "silu"

    def forward_cpu(self, x):
        return x
