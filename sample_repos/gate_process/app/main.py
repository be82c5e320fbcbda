from app.helper import greet


def run():
    return greet()
