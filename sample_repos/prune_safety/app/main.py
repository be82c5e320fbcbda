from app import branches, kernels, layers, typing_user
from app.backends import Backend
from app.lazy import current_device
from app.registry import BACKENDS
from app.server_args import ServerArgs


def main():
    args = ServerArgs()
    backend = BACKENDS[args.backend]()
    norm = layers.Norm()
    return (typing_user.describe(backend), norm.forward(1), norm.implementations(),
            typing_user.split(2),
            branches.pick(3), current_device, kernels.flash_fwd,
            Backend("cuda").is_npu_backend())
