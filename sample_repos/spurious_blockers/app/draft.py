class Factory:
    def make(self, name):
        return getattr(self, f"_create_{name}_backend")()

    def _create_triton_backend(self):
        return "triton"

    def _create_fmla_backend(self):
        from app.fmla_backend import FmlaBackend

        return FmlaBackend()
