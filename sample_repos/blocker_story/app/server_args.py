class ServerArgs:
    def __init__(self):
        self.attention_backend = "fa3"
        self.page_size = 16
