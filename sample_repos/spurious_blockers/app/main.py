from app.args import ServerArgs
from app.cache import capture, store
from app.draft import Factory
from app.quant import load_weights, make_weights
from app.registry import create

args = ServerArgs()
backend = create(args.attention_backend)
store(backend)
Factory().make("triton")
make_weights(backend, "w", 1)
load_weights(backend, ["a"], "w2")
capture(backend)
