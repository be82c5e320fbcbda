def cmd_init():
    return ["serve"]


def _unused_helper():
    return "nothing calls it"
