class FooBackend:
    pass
