from app.attention.utils import split_decodes


class FlashBackend:
    def split(self, batch):
        return split_decodes(batch)
