class ServerArgs:
    def __init__(self):
        self.attention_backend = "triton"
