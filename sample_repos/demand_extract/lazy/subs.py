from lazy import base


class EchoHandler(base.Handler):
    def handle(self):
        return "echo"
