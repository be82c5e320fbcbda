from app.server import serve


def test_serve():
    assert serve() == "ok"
