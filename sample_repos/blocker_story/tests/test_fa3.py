from app.fa3 import FA3Backend
from app.model import page_size


def test_fa3():
    assert FA3Backend().workspace() == 128
    assert page_size() == 64
