from app.legacy import old_run


def test_old_run():
    assert old_run() == 0
