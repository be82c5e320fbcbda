from typing import TYPE_CHECKING, Protocol

from app.worker.encoder_defs import default_budget

if TYPE_CHECKING:
    from app.worker.encoder_defs import CaptureInputs, ReplayBuffers


class SupportsEncoderGraphs(Protocol):
    def capture(self, inputs: "CaptureInputs") -> "ReplayBuffers": ...


def budget():
    return default_budget()
