from app.llama import LlamaModel


def test_llama():
    assert LlamaModel().run() == "llama"
