class OldAttention:
    pass
