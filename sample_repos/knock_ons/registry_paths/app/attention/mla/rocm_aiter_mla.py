class AiterMLABackend:
    pass
