class CpuPlatform:
    device_type = "cpu"
