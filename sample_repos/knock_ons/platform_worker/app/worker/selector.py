def worker_class(device):
    if device == "xpu":
        return "app.worker.xpu_worker.XPUWorker"
    return "app.worker.gpu_worker.GPUWorker"
