import importlib

from app.args import CHOICES, Args, Kind
from app.model_table import load
from app.ops import Op, pick
from app.registry import BACKENDS, TABLE, Handlers


def public_helper():
    return "kept for users"


def main(device="cuda"):
    args = Args(device)
    importlib.import_module("app.plugins." + args.device)
    if args.device == "npu":
        return "npu path"
    return (CHOICES, Kind, BACKENDS, TABLE, Handlers, Op()(1), pick(), load("Llama"))
