from app.platform import is_npu

_is_npu = is_npu()

if _is_npu:
    from app.npu_ops import npu_norm


class Norm:
    def forward(self, x):
        return x

    def forward_npu(self, x):
        return npu_norm(x)

    def implementations(self):
        # names forward_npu: the method stays live although no platform selects it here
        return [self.forward, self.forward_npu]
