from __future__ import annotations

from typing import TYPE_CHECKING, Tuple

if TYPE_CHECKING:
    from app.cuda_backend import CudaBackend


def split(n: int) -> Tuple[int, int]:
    return n, n


def describe(backend: "CudaBackend") -> str:
    return "x"
