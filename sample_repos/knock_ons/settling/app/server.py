from app.attention.registry import Backend
from app.models.big import BigConfig
from app.models.llama import LlamaModel


def serve():
    return LlamaModel(Backend.FLASH_ATTN, BigConfig())
