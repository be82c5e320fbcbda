from kern.platforms import current_platform

current_platform.import_kernels()
