class XPUModelRunner:
    pass
