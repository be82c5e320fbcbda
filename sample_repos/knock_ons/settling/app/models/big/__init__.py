from typing import TYPE_CHECKING

from app.platforms import current_platform

from .config import BigConfig

if TYPE_CHECKING or not current_platform.is_rocm():
    from .nvidia.model import BigModel
else:
    from .amd_model import BigModel  # type: ignore[assignment]

__all__ = ["BigConfig", "BigModel"]
