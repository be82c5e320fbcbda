from lazy.models.llama import Model


def test_forward():
    assert Model().forward(1) in (1, 2)
