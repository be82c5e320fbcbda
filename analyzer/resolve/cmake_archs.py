"""Resolve stage, CMake: the CUDA architectures a target is compiled for, read from the
commands that configure it (as ``analyzer.resolve.cmake`` evaluated them).

Two ways a CMake project states them per target, both read here:

- nvcc flags in its compile options, usually through a variable that collects them
  (``target_compile_options(t PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${FLAGS}>)`` with
  ``-gencode=arch=compute_90a,code=sm_90a``, ``code=[sm_90a,compute_90a]``,
  ``-arch=sm_90a``, ``--gpu-architecture=sm_90``): each ``code=`` entry is one architecture
  the TU is compiled for;
- the ``CUDA_ARCHITECTURES`` property (``set_target_properties(t PROPERTIES
  CUDA_ARCHITECTURES "80;90a")``, ``set_property(TARGET t PROPERTY CUDA_ARCHITECTURES ...)``).

A variable appended under several ``if()`` branches holds every branch's entries (the
evaluator keeps them all): the count is what the build compiles at most, the figure a wheel
or an nvcc run pays for with the newest toolkit. A list the tree does not state (an
unexpanded ``${VAR}`` from the environment, ``all``, ``native``) makes the target's list
unknown: None, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_CODE = re.compile(r"code=\[?([A-Za-z0-9_,]+)\]?")
_ARCH_FLAG = re.compile(r"(?:^|[\s;])(?:-arch|--gpu-architecture)[= ]((?:sm|compute)_\d+[a-z]?)")
_ENTRY = re.compile(r"(?:sm|compute)_\d+[a-z]?")
_PROPERTY_VALUE = re.compile(r"\d+[a-z]?(?:-real|-virtual)?")
_PROPERTY_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


def target_archs(commands: Iterable[list[str]]) -> tuple[str, ...] | None:
    """The architectures the configuring ``commands`` (each its evaluated argument texts)
    state for one target, sorted; None when they state none or one that is not known."""
    found: set[str] = set()
    for texts in commands:
        for text in texts:
            for m in _CODE.finditer(text):
                found.update(e for e in m.group(1).split(",") if _ENTRY.fullmatch(e))
            found.update(m.group(1) for m in _ARCH_FLAG.finditer(text))
        listed = _property_values(texts)
        if listed is None:
            return None
        found.update(listed)
    return tuple(sorted(found)) or None


def _property_values(texts: list[str]) -> set[str] | None:
    """The ``CUDA_ARCHITECTURES`` values of one command (empty when it sets none); None when
    one of them is not a literal architecture."""
    out: set[str] = set()
    for i, text in enumerate(texts):
        if text != "CUDA_ARCHITECTURES":
            continue
        for value in texts[i + 1:]:
            if _PROPERTY_NAME.fullmatch(value) and value != "OFF":
                break
            for entry in (e for e in value.split(";") if e and e != "OFF"):
                if not _PROPERTY_VALUE.fullmatch(entry):
                    return None
                out.add("sm_" + entry.split("-")[0])
    return out
