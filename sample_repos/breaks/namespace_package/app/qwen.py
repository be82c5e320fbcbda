class QwenModel:
    def run(self):
        return "qwen"
