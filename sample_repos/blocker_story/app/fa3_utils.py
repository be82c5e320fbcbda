def fa3_workspace():
    return 128


def fa3_page_size():
    return 64
