"""Platform plugins: each probe says whether its platform is this machine's."""

import os


def cuda_plugin() -> str | None:
    return "app.cuda_platform.CudaPlatform" if os.path.exists("/dev/nvidia0") else None


def cpu_plugin() -> str | None:
    return "app.cpu_platform.CpuPlatform" if os.cpu_count() else None


PLUGINS = {
    "cuda": cuda_plugin,
    "cpu": cpu_plugin,
}


def resolve() -> str:
    active = [name for name, probe in PLUGINS.items() if probe()]
    return PLUGINS[active[0]]() or ""
