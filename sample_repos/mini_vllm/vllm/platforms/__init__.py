def cuda_platform_plugin() -> str | None:
    return "vllm.platforms.cuda.CudaPlatform"


def rocm_platform_plugin() -> str | None:
    return "vllm.platforms.rocm.RocmPlatform"


builtin_platform_plugins = {
    "cuda": cuda_platform_plugin,
    "rocm": rocm_platform_plugin,
}


def resolve_current_platform() -> str:
    for probe in builtin_platform_plugins.values():
        found = probe()
        if found is not None:
            return found
    return "vllm.platforms.interface.UnspecifiedPlatform"
