from app.lora.ops.xpu_ops.expand import bgmv_expand

__all__ = ["bgmv_expand"]
