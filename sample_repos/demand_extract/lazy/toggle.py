def slow_down(model):
    model.fast = False
