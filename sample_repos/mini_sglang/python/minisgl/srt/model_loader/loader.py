class DefaultModelLoader:
    def load(self, path):
        return path


class DummyModelLoader:
    def load(self, path):
        return None
