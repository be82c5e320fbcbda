class AttentionBackend:
    def forward(self, sampler):
        raise NotImplementedError
