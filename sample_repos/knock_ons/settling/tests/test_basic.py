from app.platforms import current_platform
from app.server import serve

ATTN_BACKEND = "FLASH_ATTN" if not current_platform.is_rocm() else "ROCM_ATTN"


def test_serve():
    assert serve().backend.name == ATTN_BACKEND
