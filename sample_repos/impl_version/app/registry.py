BACKENDS = {}


def register_backend(name):
    def wrap(factory):
        BACKENDS[name] = factory
        return factory

    return wrap
