from app.backends import BACKENDS
from app.model import page_size
from app.server_args import ServerArgs


def main():
    args = ServerArgs()
    backend = BACKENDS[args.attention_backend]()
    return backend, page_size()
