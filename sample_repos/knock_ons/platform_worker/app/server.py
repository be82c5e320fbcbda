from app.attention.selector import backend_path
from app.lora.manager import make_wrapper
from app.worker.selector import worker_class


def serve(device):
    return worker_class(device), make_wrapper(device), backend_path(device)
