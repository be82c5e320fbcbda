from app.llama import LlamaModel


def serve():
    return LlamaModel().run()
