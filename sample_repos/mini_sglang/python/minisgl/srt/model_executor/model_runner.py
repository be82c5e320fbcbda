from __future__ import annotations

from typing import TYPE_CHECKING

from minisgl.srt.layers.attention.attention_registry import ATTENTION_BACKENDS
from minisgl.srt.models.registry import ModelRegistry
from minisgl.srt.utils.common import is_npu

if TYPE_CHECKING:
    from minisgl.srt.utils.spec_info import SpecInfo

try:
    from minisgl.srt.utils.optional_deps import fast_sampler
except ImportError:
    fast_sampler = None

MODEL_LOADER_CLASS = "minisgl.srt.model_loader.loader.DefaultModelLoader"


def load_platform_ops():
    import importlib

    return importlib.import_module("minisgl.srt.hardware_backend.npu.npu_ops")


if is_npu():
    load_platform_ops()


class ModelRunner:
    def __init__(self, server_args, spec: SpecInfo | None = None):
        self.server_args = server_args
        self.model_cls = ModelRegistry.resolve("DeepseekV2ForCausalLM")
        self.backend = ATTENTION_BACKENDS[server_args.attention_backend](self)

    def forward(self):
        return self.backend.forward(fast_sampler)
