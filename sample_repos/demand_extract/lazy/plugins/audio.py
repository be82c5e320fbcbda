def setup():
    return "audio"
