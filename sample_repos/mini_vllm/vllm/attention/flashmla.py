from vllm.flashmla_ops import flash_mla_decode


class FlashMLABackend:
    name = "FLASHMLA"

    def forward(self, q):
        return flash_mla_decode(q)
