"""A DeepSeek-V2-shaped model: RMSNorm, the MLA cache write, GELU and FP8 quantization."""

from macrollm import _custom_ops as ops
from macrollm.quant import run_quant


class DeepseekV2Attention:
    def forward(self, x, kv_c, k_pe, kv_cache, slot_mapping, weight):
        ops.rms_norm(x, x, weight, 1e-6)
        ops.concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping)
        ops.gelu_fast(x, x)
        return run_quant("scaled_fp8_quant", x, x)


EntryClass = DeepseekV2Attention
