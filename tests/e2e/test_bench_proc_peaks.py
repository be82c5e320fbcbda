"""Bench helper ``bench/proc_peaks.py``: the process of a command that reached the highest
memory -- the command's own, or a worker it forked -- named with its own high-water mark."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from proc_peaks import ProcessPeaks

# a command holding N MB in a forked child (WHERE=child) or in its own process, a second long
_PROGRAM = """
import os, sys, time
where, size = sys.argv[1], int(sys.argv[2]) * 1000 * 1000
if where == "child":
    pid = os.fork()
    if pid == 0:
        held = bytearray(size); held[::4096] = b"x" * len(held[::4096]); time.sleep(1.5)
        os._exit(0)
    os.waitpid(pid, 0)
else:
    held = bytearray(size); held[::4096] = b"x" * len(held[::4096]); time.sleep(1.5)
"""


def _largest(where: str, mb: int) -> tuple[str, int]:
    proc = subprocess.Popen([sys.executable, "-c", _PROGRAM, where, str(mb)])
    peaks = ProcessPeaks(proc.pid).start()
    proc.wait()
    peaks.stop()
    top = peaks.largest()
    assert top is not None
    return top.name, top.hwm_kib


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_largest_process_is_named() -> None:
    name, kib = _largest("child", 300)
    assert name.startswith("a worker (seen at ") and kib >= 300_000 * 1000 // 1024
    name, kib = _largest("own", 300)
    assert name == "the command's own process" and kib >= 300_000 * 1000 // 1024
