from app.platform import is_sparse


class Model:
    def __init__(self, config):
        self.use_sparse = is_sparse(config)

    def forward(self, x):
        if self.use_sparse:
            return 2 * x
        return x
