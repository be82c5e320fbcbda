class LegacyModel:
    def run(self, backend):
        return 1
