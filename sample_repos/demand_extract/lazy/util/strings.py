def fmt(name):
    return name.upper()
