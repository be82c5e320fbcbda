class NPUGraphs:
    pass
