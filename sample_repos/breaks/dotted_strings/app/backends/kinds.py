from enum import Enum


class Backend(Enum):
    FOO = "foo"
    FOO_SPARSE = "foo_sparse"
