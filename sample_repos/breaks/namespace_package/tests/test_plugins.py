import os

from app.llama import LlamaModel


def test_external_package():
    os.environ["EXTERNAL_MODEL_PACKAGE"] = "app.test.external_models"
    assert LlamaModel().run() == "llama"
