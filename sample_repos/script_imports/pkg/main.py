from pkg.loader import load_dequant
from pkg.models.llama import LlamaModel

LlamaModel().forward(load_dequant())
