from minisgl.srt.multimodal.processors.base_processor import BaseProcessor

ARCHS = ["Qwen2VLForConditionalGeneration"]


class QwenVLProcessor(BaseProcessor):
    pass
