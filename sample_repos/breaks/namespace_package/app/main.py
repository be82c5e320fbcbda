from app.llama import LlamaModel

LlamaModel().run()
