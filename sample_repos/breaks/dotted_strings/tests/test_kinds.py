from app.backends.kinds import Backend


def test_sparse_kind():
    assert Backend.FOO_SPARSE.value == "foo_sparse"
