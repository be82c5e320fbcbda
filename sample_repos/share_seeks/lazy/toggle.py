def force_turbo(model):
    model.turbo = True
