from minisgl.srt.entrypoints.engine import Engine
from minisgl.srt.server_args import ServerArgs


def launch():
    engine = Engine(ServerArgs())
    engine.run()


if __name__ == "__main__":
    launch()
