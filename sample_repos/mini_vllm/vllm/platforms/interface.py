class UnspecifiedPlatform:
    name = "unspecified"
