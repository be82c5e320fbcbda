from app.registry import register_backend


@register_backend("fa3")
def create_fa3_backend():
    return "fa3"


@register_backend("fa4")
def create_fa4_backend():
    from app.fa4_backend import FA4Backend

    return FA4Backend()
