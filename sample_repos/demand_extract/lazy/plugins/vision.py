def setup():
    return "vision"
