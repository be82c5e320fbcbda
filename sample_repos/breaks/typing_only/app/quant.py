from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.models.utils import WeightsMapper


def apply(mapper: "WeightsMapper | None" = None):
    return mapper
