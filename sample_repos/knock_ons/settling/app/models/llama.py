class LlamaModel:
    def __init__(self, backend, config):
        self.backend = backend
        self.config = config
