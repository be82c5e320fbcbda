from app.attention.utils import split_decodes_prefills_and_extends


class AiterFlashAttentionBackend:
    def split(self, batch):
        return split_decodes_prefills_and_extends(batch)
