from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.args import EngineArgs


def start(engine_args: "EngineArgs"):
    return engine_args
