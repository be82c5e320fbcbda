import os


def pick(x):
    if x > 10:
        from app.helpers import fast_pick as fn
    elif os.environ.get("APP_SLOW"):
        from app.helpers import slow_pick as fn
    else:
        fn = abs
    return fn(x)
