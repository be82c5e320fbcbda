from app.fa3_utils import fa3_page_size


def page_size():
    return fa3_page_size()
