def first(items):
    if items is None:
        return None
    return items[0]
