"""Worker processes (``analyzer.util.parallel``): results in the items' order, and a worker
that dies before it answers as one clear error (exit code 10), never a traceback."""

from __future__ import annotations

import os
import sys

import pytest

from analyzer.errors import WorkerError
from analyzer.util.parallel import forked_map, forked_start, parallel_map


def _square_or_die(n: int) -> int:
    if n == 5:
        os._exit(3)  # (as the kernel's out-of-memory killer leaves it: no answer)
    return n * n


def test_results_come_in_the_items_order() -> None:
    assert parallel_map(_square_or_die, [9, 8, 7, 6, 4, 3, 2, 1], jobs=2,
                        size=lambda n: n) == [81, 64, 49, 36, 16, 9, 4, 1]
    offset = 10  # (a closure: forked workers inherit it)
    assert forked_map(lambda n: n + offset, [1, 2, 3, 4], jobs=2) == [11, 12, 13, 14]


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_a_worker_that_dies_is_a_clear_error() -> None:
    with pytest.raises(WorkerError, match="worker process died") as pooled:
        parallel_map(_square_or_die, list(range(10)), jobs=2)
    assert pooled.value.exit_code == 10
    with pytest.raises(WorkerError, match="worker process died"):
        forked_map(_square_or_die, list(range(10)), jobs=2)
    started = forked_start(_square_or_die, list(range(10)), jobs=2)
    with pytest.raises(WorkerError):
        started.results()
