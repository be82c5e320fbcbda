def is_blackwell():
    return False


class DraftBackendFactory:
    def __init__(self, backend):
        self.backend = backend

    def create_decode_backend(self):
        backend_map = {
            "flashinfer": self._create_flashinfer_decode_backend,
            "triton": self._create_triton_decode_backend,
            "fa3": self._create_fa3_decode_backend,
            "hybrid": (
                self._create_fa3_prefill_backend
                if not is_blackwell()
                else self._create_triton_decode_backend
            ),
            "flashmla": self._create_flashmla_decode_backend,
        }
        return backend_map[self.backend]()

    def _create_flashinfer_decode_backend(self):
        from pkg.flashinfer_backend import Backend

        return Backend()

    def _create_triton_decode_backend(self):
        from pkg.triton_backend import Backend

        return Backend()

    def _create_fa3_decode_backend(self):
        from pkg.fa3_backend import Backend

        return Backend()

    def _create_fa3_prefill_backend(self):
        from pkg.fa3_backend import Backend

        return Backend()

    def _create_flashmla_decode_backend(self):
        from pkg.flashmla_backend import Backend

        return Backend()
