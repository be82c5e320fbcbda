"""Extract stage, on demand: parse only the files whose contents can matter.

The pipeline hands over the *seeds* -- files something outside the import graph may depend on
(tests and scripts, the roots, the profile's modules, main-guarded files; see
``analyzer.extract.seeds``) -- and this module closes them over the import graph: every
module a parsed file may name (an import, a submodule reached through an imported name, a
dotted string, a package walked for plugins, its parent packages) is parsed in turn, while
the folds are ignored (they are decided later; an import under any guard counts). A Python
module no parsed file can name is dead under every decision, so its facts cannot change the
result: it is *counted* (bytes, lines, sha256) and given empty facts, after a bare syntax
check (a file that does not parse is kept, as with a full parse, so it is extracted whole).

``needles`` adds byte searches for what is found by name rather than by import (subclasses of a
class enumerated with ``__subclasses__``): an unparsed file containing one is parsed too.

The work runs as one queue over the worker processes: a parsed file's candidates are queued as
soon as it comes back, so the closure costs no round trips per import depth.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer.core.store import Query
from analyzer.discover.walk import file_module_name
from analyzer.extract.cache import stored_facts
from analyzer.extract.python_facts import ImportFact, PythonFacts
from analyzer.extract.python_fstrings import OWN_NAME
from analyzer.extract.runner import (
    ExtractedFile,
    Progress,
    ReadFile,
    _extract_batch,
    _extract_local,
    _finish,
    count_lines,
)
from analyzer.extract.runner import (
    _batches as _runner_batches,
)
from analyzer.extract.treesitter import parse_source
from analyzer.model import ParseProblem, SourceFile
from analyzer.util import pickling
from analyzer.util.gc_pause import gc_paused

__all__ = ["Demand", "DemandResult", "extract_on_demand", "module_candidates"]

_SYNTAX_KEY = "python-syntax"  # cache entries of the bare syntax check of a counted file
SYNTAX = Query("python-syntax", code=("analyzer.extract.demand",))


@dataclass(frozen=True)
class Demand:
    """What the closure starts from and how it widens.

    ``seeds``: indices of the files parsed whatever the imports say. ``restricted``: plugin
    packages whose modules only an import names (a walk of them adds nothing).
    ``needles``: byte strings to look for in unparsed files, from the parsed facts."""

    seeds: frozenset[int]
    restricted: frozenset[str] = frozenset()
    needles: Callable[[list[PythonFacts]], set[bytes]] | None = None


@dataclass
class DemandResult:
    files: list[ExtractedFile]
    parsed: set[int] = field(default_factory=set)  # file indices extracted whole
    counted: set[int] = field(default_factory=set)  # Python modules counted, not parsed


def dotted_prefixes(dotted: str) -> list[str]:
    """``a.b.c`` -> ``["a", "a.b", "a.b.c"]``: the name and every package above it."""
    out: list[str] = []
    at = dotted.find(".")
    while at >= 0:
        out.append(dotted[:at])
        at = dotted.find(".", at + 1)
    out.append(dotted)
    return out


def module_candidates(name: str, is_package: bool, facts: PythonFacts
                      ) -> tuple[set[str], set[str]]:
    """Dotted names (modules or not) a module's facts may resolve through -- what its imports
    name, the submodules its imported names may be, the prefixes of each imported name's
    attribute chains, its dotted strings and its ancestors -- and the packages it may load
    every module of (a walk of its own folder, of a package it names by string or reads
    ``__path__`` of, the package a computed ``import_module`` name starts in; as the graph
    stage's plugin families). A superset: folds are ignored."""
    out: set[str] = set()
    package = name if is_package else name.rpartition(".")[0]
    aliases: dict[str, str] = {}

    def add(dotted: str) -> None:
        if dotted not in out:  # (``out`` holds every prefix of what it holds)
            out.update(dotted_prefixes(dotted))

    for fact in facts.imports:
        base = _absolute(package, fact)
        if base is None:
            continue
        add(base)
        if fact.is_from:
            for imported in fact.names:
                if imported.name == "*":
                    continue
                add(f"{base}.{imported.name}")
                aliases[imported.alias or imported.name] = f"{base}.{imported.name}"
        elif fact.alias:
            aliases[fact.alias] = base
        else:
            head = base.split(".")[0]
            aliases[head] = head
    walked: set[str] = set()
    kinds = {w.kind for w in facts.package_walks}
    walks = bool(kinds & {"iter_modules", "walk_packages"})
    for ref in facts.references:
        head, _, rest = ref.chain.partition(".")
        full = aliases.get(head)
        if full is not None:
            dotted = f"{full}.{rest}" if rest else full
            add(dotted)
            if walks and dotted.endswith(".__path__"):
                walked.add(dotted[: -len(".__path__")])
        elif is_package and rest:  # a package reading its own submodule's attribute
            add(f"{name}.{head}")
    for s in facts.strings:
        value = s.value.replace(OWN_NAME, name)  # import_module(f"{__name__}.x")
        add(value)
        if walks or s.call is not None:  # walked here, or handed to a walker
            walked.add(value)
    for exported in facts.all_names or ():
        if is_package:
            add(f"{name}.{exported}")
    if name:
        add(name)
    # import_module(f"pkg.backends.{name}"): the package it starts in
    walked.update(p for w in facts.package_walks if (p := w.prefix_package))
    if (walks or {"listdir", "dynamic_import"} <= kinds) and package and any(
            r.chain.split(".")[0] == "__file__" for r in facts.references):
        walked.add(package)  # it loads its own folder
    return out, walked


def _absolute(package: str, fact: ImportFact) -> str | None:
    if fact.level == 0:
        return fact.module or None
    parts = package.split(".") if package else []
    drop = fact.level - 1
    if drop > len(parts):
        return None
    base = parts[: len(parts) - drop] if drop else parts
    return ".".join([*base, fact.module] if fact.module else base) or None


class _Modules:
    """The discovered Python modules by name (the first file claiming a name, as the
    resolve stage keeps), and each package's submodules."""

    def __init__(self, sources: list[SourceFile], python_roots: tuple[str, ...]):
        self.by_name: dict[str, int] = {}
        self.name_of: dict[int, tuple[str, bool]] = {}
        self.children: dict[str, list[str]] = {}
        for i, source in enumerate(sources):
            if source.language != "python":
                continue
            name = file_module_name(source.path, python_roots)
            if name is None or name in self.by_name:
                continue
            self.by_name[name] = i
            is_package = source.path.endswith("/__init__.py") or source.path == "__init__.py"
            self.name_of[i] = (name, is_package)
        for name in self.by_name:
            parent = name.rpartition(".")[0]
            self.children.setdefault(parent, []).append(name)

    def submodules(self, package: str) -> list[str]:
        out: list[str] = []
        stack = list(self.children.get(package, ()))
        while stack:
            name = stack.pop()
            out.append(name)
            stack.extend(self.children.get(name, ()))
        return out


def _family(packages: set[str], modules: _Modules, restricted: frozenset[str]) -> set[str]:
    """Every module under the walked packages, except the families the profile restricts
    (their modules live only if an import names them)."""
    out: set[str] = set()
    for package in packages:
        if package in modules.children and package not in restricted:
            out.update(modules.submodules(package))
    return out


def extract_on_demand(root: Path, sources: list[SourceFile], reads: list[ReadFile],
                      python_roots: tuple[str, ...], demand: Demand, *, jobs: int = 1,
                      progress: Callable[[Progress], None] | None = None,
                      extracted: dict[int, ExtractedFile] | None = None) -> DemandResult:
    """Facts of every source, in order: the seeds and their closure parsed, every other
    Python module counted with empty facts (see the module docstring). ``extracted``: files
    extracted by an earlier pass of the same scan (by index), used and filled."""
    known = extracted if extracted is not None else {}
    modules = _Modules(sources, python_roots)
    out: list[ExtractedFile | None] = [None] * len(sources)
    result = DemandResult([])
    scheduled: set[int] = set()
    queue: list[int] = []
    parsed_facts: list[PythonFacts] = []

    def schedule(indices: Iterable[int]) -> None:
        for i in indices:
            if i not in scheduled:
                scheduled.add(i)
                queue.append(i)

    def take(i: int, ex: ExtractedFile) -> None:
        out[i] = known[i] = ex
        result.parsed.add(i)
        if progress is not None and len(result.parsed) % 64 == 0:
            progress(Progress(len(sources), 0, len(result.parsed), len(scheduled)))
        facts = ex.facts
        if not isinstance(facts, PythonFacts) or i not in modules.name_of:
            return
        name, is_package = modules.name_of[i]
        named, walked = module_candidates(name, is_package, facts)
        named |= _family(walked, modules, demand.restricted)
        parsed_facts.append(facts)
        schedule(modules.by_name[n] for n in named if n in modules.by_name)

    schedule(sorted(demand.seeds))
    pool = (ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None)
    try:
        with gc_paused():
            while True:
                _drain(queue, sources, reads, known, pool, take)
                more = _by_needles(demand, parsed_facts, sources, reads, scheduled)
                more |= _unparsable(sources, reads, scheduled, modules)
                if not more:
                    break
                schedule(sorted(more))
    finally:
        if pool is not None:
            pool.shutdown()
    if progress is not None:  # the closure is complete: what was scheduled is parsed
        progress(Progress(len(sources), 0, len(result.parsed), len(result.parsed)))
    for i, source in enumerate(sources):
        if out[i] is not None:
            continue
        got = reads[i]
        if got.data is None:
            problem = ParseProblem(source.path, 0, "unreadable", got.error or "cannot read")
            out[i] = ExtractedFile(source.path, source.language, "", 0, None, (problem,))
            continue
        lines = count_lines(got.data)
        out[i] = ExtractedFile(source.path, source.language, got.digest, lines,
                               PythonFacts(source.path, lines, (), (), (), None, (), (), ()), ())
        result.counted.add(i)
    result.files = [x for x in out if x is not None]
    return result


def _drain(queue: list[int], sources: list[SourceFile], reads: list[ReadFile],
           known: dict[int, ExtractedFile],
           pool: ProcessPoolExecutor | None,
           take: Callable[[int, ExtractedFile], None]) -> None:
    """Extract everything queued, and everything queued meanwhile, until the queue is empty:
    what an earlier pass or the cache has at once, the rest in batches over the workers (a
    batch's results queue their candidates as soon as it is back)."""
    cache = stored_facts()
    in_flight: dict[Future[list[Any]], list[int]] = {}
    while queue or in_flight:
        misses: list[int] = []
        while queue:
            i = queue.pop()
            if i in known:
                take(i, known[i])
                continue
            got = reads[i]
            source = sources[i]
            if got.data is None:
                problem = ParseProblem(source.path, 0, "unreadable", got.error or "cannot read")
                take(i, ExtractedFile(source.path, source.language, "", 0, None, (problem,)))
                continue
            facts = cache.get(source.path, got.digest, source.language) \
                if cache is not None else None
            if facts is not None:
                take(i, _finish(source, got.digest, got.data, facts))
            else:
                misses.append(i)
        for batch in [[i for i, _digest, _data in b] for b in _runner_batches(
                [(i, reads[i].digest, reads[i].data or b"") for i in misses])]:
            payload = [(sources[i].path, sources[i].language, reads[i].digest,
                        reads[i].data or b"") for i in batch]
            if pool is None:
                for i, facts in zip(batch, _extract_local(payload), strict=True):
                    take(i, _finish(sources[i], reads[i].digest, reads[i].data or b"", facts))
                continue
            in_flight[pool.submit(_extract_batch, payload,
                                  cache.base if cache is not None else None)] = batch
        if not in_flight:
            continue
        done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
        for future in done:
            batch = in_flight.pop(future)
            for i, facts in zip(batch, future.result(), strict=True):
                if isinstance(facts, bytes):
                    facts = pickling.loads(facts)
                    if cache is not None:  # (the worker stored them)
                        cache.held(sources[i].path, reads[i].digest, sources[i].language,
                                   facts)
                take(i, _finish(sources[i], reads[i].digest, reads[i].data or b"", facts))


def _by_needles(demand: Demand, parsed: list[PythonFacts], sources: list[SourceFile],
                reads: list[ReadFile], scheduled: set[int]) -> set[int]:
    if demand.needles is None:
        return set()
    needles = demand.needles(parsed)
    if not needles:
        return set()
    return {i for i, (source, got) in enumerate(zip(sources, reads, strict=True))
            if i not in scheduled and source.language == "python" and got.data is not None
            and any(n in got.data for n in needles)}


def _unparsable(sources: list[SourceFile], reads: list[ReadFile], scheduled: set[int],
                modules: _Modules) -> set[int]:
    """Unscheduled files that would not parse cleanly (syntax errors, binary, bad UTF-8):
    extracted whole, as a full parse would, so they are kept the same way. The check's
    answer is cached per content like the facts."""
    cache = stored_facts()
    out: set[int] = set()
    for i, (source, got) in enumerate(zip(sources, reads, strict=True)):
        if i in scheduled or got.data is None:
            continue
        if i not in modules.name_of:  # not a module: nothing counts it, parse it
            out.add(i)
            continue
        clean = cache.get(source.path, got.digest, _SYNTAX_KEY, SYNTAX) \
            if cache is not None else None
        if clean is None:
            _root, _data, problems = parse_source(source.path, got.data, "python")
            clean = "clean" if not problems else "problems"
            if cache is not None:
                cache.put(source.path, got.digest, _SYNTAX_KEY, clean, SYNTAX)
        if clean != "clean":
            out.add(i)
    return out
