from app.backends import BACKENDS
from app.server_args import ServerArgs


def main():
    args = ServerArgs()
    return BACKENDS[args.attention_backend]()
