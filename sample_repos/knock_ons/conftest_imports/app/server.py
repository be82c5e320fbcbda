from app.engine import run


def serve():
    return run()
