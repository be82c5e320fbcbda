"""Pipeline, the gate in a process of its own: the applied copy scanned beside the scan.

The gate (``analyzer.pipeline.gate``) applies the plan's manifest to a copy of the tree and
runs ``depgraph verify --before`` there: a scan of a whole second tree. Made in the scan's
own process, the copy's facts, index, graph and plans pile up on the scan's (the scan's
process then peaks at the sum of both, and every worker it forks afterwards starts from that
peak). With several jobs the gate's copy is therefore applied and verified in a fresh Python
process (started anew, not forked: it holds nothing of the scan) running the same code,
:meth:`~analyzer.pipeline.gate.CopyToVerify.problems`; it shares with the scan what the store
keeps (the facts of every file, the edits, each module's edges under the copy's slot, the
lints), never objects.

The request and the answer travel as pickles in files of a temporary folder; the process's
import path is the scan's own (``sys.path`` handed over), so it runs exactly the analyzer the
scan runs, whatever the working folder holds. An error of depgraph's own kind in the process
(``DepgraphError``: a profile, a root) is raised here as it was there; anything else is a bug,
reported as one with the process's last line.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from analyzer.errors import DepgraphError

if TYPE_CHECKING:
    from analyzer.pipeline.analyze import RunSettings
    from analyzer.verify.problem import VerifyProblem

# the process's program: the scan's import path, then the request's answer (argv: the path
# list as JSON, the request's file, the answer's file)
_PROGRAM = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
            "from analyzer.pipeline.gate_process import serve; serve(sys.argv[2], sys.argv[3])")


class Verifiable(Protocol):
    """What the process verifies: a picklable value whose ``problems`` are what ``depgraph
    verify --before`` reports (``analyzer.pipeline.gate.CopyToVerify``)."""

    def problems(self, settings: RunSettings) -> list[VerifyProblem]: ...


class GateProcessError(RuntimeError):
    """The gate's process ended without an answer (a bug of depgraph, not of the input)."""


def verify_in_process(copy: Verifiable, settings: RunSettings) -> list[VerifyProblem]:
    """``copy.problems(settings)``, computed in a fresh process (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="depgraph-gate-process-") as work:
        request, answer = Path(work) / "request.pickle", Path(work) / "answer.pickle"
        request.write_bytes(pickle.dumps((copy, settings), protocol=pickle.HIGHEST_PROTOCOL))
        done = subprocess.run([sys.executable, "-c", _PROGRAM, json.dumps(sys.path),
                               str(request), str(answer)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, check=False)
        if not answer.is_file():
            last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [""])[-1]
            raise GateProcessError(f"the gate's process ended with code {done.returncode} "
                                   f"and no answer: {last}")
        sys.stderr.write(done.stderr.decode("utf-8", "replace"))  # (its warnings, if any)
        ok, value = pickle.loads(answer.read_bytes())
    if not ok:
        raise value  # a DepgraphError the process raised
    problems: list[VerifyProblem] = value
    return problems


def serve(request: str, answer: str) -> None:
    """The process's side: read the request, verify, write the answer (a ``DepgraphError``
    is written as the answer too; anything else ends the process with its traceback)."""
    copy, settings = pickle.loads(Path(request).read_bytes())
    try:
        out: tuple[bool, object] = (True, copy.problems(settings))
    except DepgraphError as exc:
        out = (False, exc)
    written = Path(answer + ".part")
    written.write_bytes(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
    written.replace(answer)
