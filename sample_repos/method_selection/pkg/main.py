from pkg.choices import BACKENDS
from pkg.draft import DraftBackendFactory
from pkg.ops import SiluAndMul
from pkg.runner import ModelRunner
from pkg.visitors import Visitor


def main(backend="flashinfer", device="cuda", node="call"):
    assert backend in BACKENDS
    factory = DraftBackendFactory(backend)
    runner = ModelRunner(device)
    return (factory.create_decode_backend().forward(1), SiluAndMul()(1),
            runner.init_device_graphs(),
            Visitor().visit(node))  # the callers of main may pass any node kind
