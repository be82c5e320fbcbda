def old_serve():
    return "old"
