class LMHead:
    pass
