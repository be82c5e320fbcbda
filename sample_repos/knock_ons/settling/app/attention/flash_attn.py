class FlashBackend:
    name = "flash"
