ATTENTION_BACKENDS = ["triton", "flashinfer", "npu_attn"]


class Args:
    def __init__(self, deterministic, sm100):
        self.attention_backend = None
        if deterministic:
            if self.attention_backend is None:
                if sm100:
                    self.attention_backend = "triton"
                else:
                    self.attention_backend = "npu_attn"

    def _find_npu_quant_config(self):
        self.attention_backend = "npu_attn"
        return self.attention_backend
