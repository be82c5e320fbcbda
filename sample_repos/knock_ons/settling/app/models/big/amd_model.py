class BigModel:
    pass
