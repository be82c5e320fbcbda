import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_dequant():
    spec = importlib.util.spec_from_file_location("dequant", ROOT / "pkg/kernels/dequant.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dequant_k_cache
