from pkg.old import legacy


def test_legacy():
    assert legacy() == 0
