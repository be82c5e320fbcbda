"""Worker processes (``analyzer.util.parallel``): results in the items' order, and a worker
that dies before it answers as one clear error (exit code 10), never a traceback."""

from __future__ import annotations

import os
import random
import sys
import time
import tracemalloc
from concurrent import futures

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


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_some_results_come_while_the_workers_go_on_with_the_others(tmp_path) -> None:
    # the last item waits for a file this process writes only after it has the first two
    # (results_of(0, 2) waits for those items alone); were it to wait for the last one too,
    # that one gives up waiting and answers -1
    gate = tmp_path / "go"

    def slow_last(n: int) -> int:
        waited = 0.0
        while n == 3 and not gate.exists():
            if waited > 30:  # (never written: the first results waited for this one)
                return -1
            time.sleep(0.01)
            waited += 0.01
        return n * 10

    started = forked_start(slow_last, [1, 2, 3], jobs=2, chunks_per_job=3)
    assert started.results_of(0, 2) == [10, 20]
    gate.write_text("")
    assert started.results_of(2, 3) == [30]
    started.cancel()


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_results_taken_are_no_longer_held_while_the_workers_go_on() -> None:
    # each answer is 8 MB of random bytes (no compression makes them smaller); once the
    # first two are taken and dropped by the caller, nothing of them stays in this process
    # while the pool stays (for the third)
    size = 8_000_000
    tracemalloc.start()
    started = forked_start(lambda n: random.Random(n).randbytes(size), [1, 2, 3], jobs=2,
                           chunks_per_job=3)
    try:
        first = started.results_of(0, 2)
        assert first == [random.Random(n).randbytes(size) for n in (1, 2)]
        held_with_them = tracemalloc.get_traced_memory()[0]
        del first
        held = tracemalloc.get_traced_memory()[0]
        # the two answers went, and no pickled copy of them is left behind
        assert held_with_them - held >= 2 * size
        assert held < 2 * size
        with pytest.raises(AssertionError, match="taken twice"):
            started.results_of(1, 2)
        assert started.results_of(2, 3) == [random.Random(3).randbytes(size)]
    finally:
        tracemalloc.stop()
        started.cancel()


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_answers_wait_compressed_until_taken() -> None:
    # two answers of 8 MB that compress well (a plan's answer: edges and lints, names
    # repeated) arrive while nothing takes them: this process holds them compressed, a
    # small part of their size, and gives them back whole when they are taken
    size = 8_000_000
    line = b"py:pkg.models.deepseek_v2:DeepseekV2Attention.forward imports\n"
    tracemalloc.start()
    started = forked_start(lambda n: line * (size // len(line)) + bytes([n]), [1, 2], jobs=2,
                           chunks_per_job=2)
    try:
        futures.wait(started._futures)  # (both answered, not taken)
        held = tracemalloc.get_traced_memory()[0]
        assert held < size // 4
        assert started.results_of(0, 2) == [line * (size // len(line)) + bytes([n])
                                            for n in (1, 2)]
    finally:
        tracemalloc.stop()
        started.cancel()
