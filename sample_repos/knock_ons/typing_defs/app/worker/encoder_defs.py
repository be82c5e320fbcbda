from dataclasses import dataclass


@dataclass
class CaptureInputs:
    batch: int


@dataclass
class ReplayBuffers:
    size: int


def default_budget():
    return 8


def unused_budget():
    return 0
