from pkg.visitors import Visitor


def test_tested_only():
    assert Visitor().tested_only() == "a test calls it"
