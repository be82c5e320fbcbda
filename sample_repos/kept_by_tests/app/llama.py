class LlamaModel:
    def run(self):
        return "llama"
