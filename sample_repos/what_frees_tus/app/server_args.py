import os


class ServerArgs:
    def __init__(self):
        self.attention_backend = os.environ.get("BACKEND", "triton")
