class BigConfig:
    layers = 2
