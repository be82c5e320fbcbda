def make_wrapper(device):
    if device == "xpu":
        from app.lora.punica_xpu import PunicaWrapperXPU

        return PunicaWrapperXPU()
    return None
