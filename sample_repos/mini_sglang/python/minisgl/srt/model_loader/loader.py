from minisgl.srt.model_loader.component_loaders.component_loader import ComponentLoader


class DefaultModelLoader:
    def load(self, path):
        ComponentLoader.ensure_registered()
        return path


class DummyModelLoader:
    def load(self, path):
        return None
