from minisgl.srt.utils.common import _is_npu, is_cuda

if _is_npu:
    from minisgl.srt.hardware_backend.npu.npu_ops import npu_rms_norm
elif is_cuda():
    from mini_kernel import rmsnorm
else:
    rmsnorm = None


class RMSNorm:
    def forward(self, x):
        if _is_npu:
            return npu_rms_norm(x)
        return rmsnorm(x, x, None)
