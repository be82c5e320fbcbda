from kern.flash_mla import flash_mla_with_kvcache


class FlashMLABackend:
    def forward(self, q):
        return flash_mla_with_kvcache(q)
