from kern.probe import is_cpu, is_rocm

if is_rocm() or is_cpu():
    from kern.platforms.rocm import RocmPlatform as Platform
else:
    from kern.platforms.cuda import CudaPlatform as Platform

current_platform = Platform()
