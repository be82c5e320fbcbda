import sys
import types

from app.llama import LlamaModel


def test_with_stubbed_srt(monkeypatch):
    monkeypatch.setitem(sys.modules, "app.srt", types.ModuleType("app.srt"))
    assert LlamaModel().run() == "llama"
