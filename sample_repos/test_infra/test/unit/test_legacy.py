from app.legacy import old_serve


def test_old_serve():
    assert old_serve() == "old"
