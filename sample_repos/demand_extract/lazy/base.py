class Handler:
    def handle(self):
        return None
