from app.backend import FlashAttentionBackend


class DraftBackendFactory:
    def __init__(self, runner):
        self.runner = runner

    def create(self, backend):
        backend_map = {
            "fa3": self._create_fa3_decode_backend,
            "fa4": self._create_fa4_decode_backend,
        }
        return backend_map[backend]()

    def _create_fa_decode_backend(self, fa_impl_ver=3):
        return FlashAttentionBackend(self.runner, fa_impl_ver=fa_impl_ver)

    def _create_fa3_decode_backend(self):
        return self._create_fa_decode_backend(fa_impl_ver=3)

    def _create_fa4_decode_backend(self):
        return self._create_fa_decode_backend(fa_impl_ver=4)
