from app.lora.ops.xpu_ops import bgmv_expand


class PunicaWrapperXPU:
    def expand(self, x):
        return bgmv_expand(x)
