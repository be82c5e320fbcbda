class FlashBackend:
    pass
