"""Plan stage: which dropped features each deletion goes with, so that applying any of them
alone (``depgraph apply --feature F``), or several in any order, leaves a tree that holds
together.

A deletion *needs* another when the other's code uses what the first removes: if the first
is applied, the second must be too (the import of a deleted module, the function that calls
a deleted one). The uses are read from the graph of the tree with no feature dropped (every
edge a fold, a dropped registry entry or a forced CMake option takes away is there: the code
those decisions remove is the code that uses feature code), and from the plan's own soundness
check run on each feature's share (a name an import binds, read by code another feature
removes). Then:

- ``features``: the dropped features whose shares hold a deletion (with the shares known,
  ``analyzer.pipeline.shares``: the plan keeping one of them keeps it; without, its own
  feature, a fold's, a registry key's, and those of everything it needs);
- ``after``: with the shares known, the features of what it needs that are not its own (the
  one fold of a chain over three platforms is in the three shares: the file its cpu clause
  imports, cpu's share alone, waits for the other two). It goes when the last of
  ``features`` and ``after`` is applied -- a knock-on of two features waits for both;
- ``with_features``: for a deletion that belongs to no feature (dead whatever is dropped) but
  that a feature's deletion needs (a dead module importing a feature's module): the features
  any of which takes it along (deleting dead code early is always safe);
- neither: other dead code, applied only with the whole plan -- also code dead anyway that
  has to wait for a feature's deletions (a model a dropped feature's test names) when no
  deletion of a feature needs it gone: ``apply --feature F`` carries out F and what F's
  deletions free or need, not the rest of the dead code.

``selected(d, applied)`` is the one rule of which deletions an apply of the features
``applied`` carries out; the codemod reads the same two fields.
"""

from __future__ import annotations

import dataclasses
import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from analyzer.analysis.liveness import compute_liveness
from analyzer.model import Deletion, Plan, goes_with
from analyzer.nodes import Graph

# what the soundness check says of a plan's share: (path, line, deletion or None, removed
# node or None) of each break, the deletion to blame or the node it needs
Breaks = list[tuple[str, int, Deletion | None, str | None]]
# shares of a plan -> what the check says of each (asked once per refinement, for all the
# shares it has not checked yet: their files' simulations are computed in one pool)
Checker = Callable[[list[list[Deletion]]], list[Breaks]]

MAX_REFINEMENTS = 8


def selected(d: Deletion, applied: frozenset[str] | None) -> bool:
    """``d`` is carried out once the features ``applied`` are (None: the whole plan)."""
    return goes_with(d.features, d.with_features, applied, d.after)


class _Locator:
    """The plan's deletions by what they remove: a file, or lines of one."""

    def __init__(self, deletions: Sequence[Deletion]) -> None:
        self.files: dict[str, list[int]] = defaultdict(list)
        spans: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
        for i, d in enumerate(deletions):
            if d.kind == "delete_file":
                self.files[d.path].append(i)
            elif d.start_line:
                spans[d.path].append((d.start_line, d.end_line or d.start_line, i))
        self.spans = {p: sorted(s) for p, s in spans.items()}
        self.starts = {p: [s for s, _, _ in v] for p, v in self.spans.items()}

    def covering(self, path: str, first: int, last: int | None = None) -> list[int]:
        """Deletions removing every line of ``first..last`` of ``path``."""
        last = first if last is None else last
        out = list(self.files.get(path, ()))
        spans = self.spans.get(path)
        if spans:
            for s, e, i in spans[:bisect_right(self.starts[path], first)]:
                if s <= first and last <= e:
                    out.append(i)
        return out

    def removing(self, data: dict[str, object]) -> list[int]:
        """Deletions that remove a graph node (by its path and lines)."""
        path = data.get("path")
        if not isinstance(path, str):
            return []
        start = data.get("start_line")
        if not isinstance(start, int) or data.get("kind") in ("module", "native_file",
                                                                 "cmake_file"):
            return list(self.files.get(path, ()))
        end = data.get("end_line")
        return self.covering(path, start, end if isinstance(end, int) else start)


def assign_features(plan: Plan, open_graph: Graph, order: Sequence[str],
                    check: Checker | None = None, roots: Sequence[str] = (),
                    unparsed: Mapping[str, bytes] | None = None,
                    modules: Mapping[str, str] | None = None,
                    share_of: Mapping[str, frozenset[Deletion]] | None = None) -> None:
    """Set ``features`` and ``with_features`` of every deletion of ``plan`` (see the module
    docstring). ``order``: the dropped features, in the profile's order; ``check``: the
    plan's soundness check of a share of the plan, to learn what the graph does not show;
    ``roots``: the scan's roots -- what the open graph keeps live from them is code the
    features' drops freed (a knock-on, shown under its feature); what it does not keep was
    dead anyway (other dead code, shown under none, though it may have to wait for a
    feature's deletions to go). ``unparsed``: the bytes of the files the plan deletes that
    were never parsed (nothing the analysis reads names them), ``modules``: path -> module
    name of every Python file: such a file that mentions a module the plan edits or deletes
    may import it, so it goes with it. ``share_of``: each feature's share of the plan
    (``analyzer.pipeline.shares``: the deletions the plan keeping it does not make, as
    :func:`bare` deletions; under ``""`` those the plan keeping every feature makes too): a
    deletion's own features are those whose share holds it (instead of its feature, its
    fold's and what the open graph shows the drops freed); one in no share that is no other
    dead code goes with any of the features its own decision names (its feature, its
    fold's)."""
    deletions = plan.deletions
    where = _Locator(deletions)
    needs: dict[int, set[int]] = defaultdict(set)
    registrations: dict[str, list[int]] = defaultdict(list)  # op node -> its registrations
    for i, d in enumerate(deletions):
        if d.category == "op-registration" and d.symbol:
            registrations[f"op:{d.symbol}"].append(i)
    freed = _freed(open_graph, where, roots, registrations) \
        if roots and share_of is None else None
    removed: dict[str, list[int]] = {}  # node -> the deletions removing it (once a node)
    nodes = open_graph.nodes
    for _u, v, data in open_graph.edges(data=True):
        if data.get("kind") in ("member", "defined_in"):
            continue  # a class's method, a definition's module: the same code, not a use
        gone = removed.get(v)
        if gone is None:
            gone = removed[v] = registrations.get(v) or where.removing(nodes[v])
        if not gone:
            continue
        file, line = data.get("file"), data.get("line")
        if not isinstance(file, str) or not isinstance(line, int):
            continue
        users = where.covering(file, line)
        for x in gone:
            needs[x].update(y for y in users if y != x)
    for x, ys in _unparsed_uses(deletions, unparsed or {}, modules or {}).items():
        needs[x].update(ys)
    everything = set(order)
    anyof: list[set[str]] = [set() for _ in deletions]
    if share_of is not None:  # the features whose share holds it
        own = [{f for f in order if bare(d) in share_of.get(f, ())} for d in deletions]
        anyway = share_of.get("", frozenset())
        anyof = [{f for f in (d.feature, *d.features) if f in everything}
                 if not own[i] and bare(d) not in anyway else set()
                 for i, d in enumerate(deletions)]
    else:  # its feature, or those a fold relied on together
        own = [{f for f in (d.feature, *d.features) if f in everything} for d in deletions]
    full_only: set[int] = set()  # needs what no share of the plan can give: the whole plan
    checked: dict[tuple[Deletion, ...], Breaks] = {}
    for _round in range(MAX_REFINEMENTS):
        _apply_sets(deletions, needs, order, [everything if i in full_only else s
                                              for i, s in enumerate(own)], own, freed, anyof,
                    strict=share_of is not None)
        if check is None:
            return
        learned = False
        # (a simulation from the cache names equal deletions, not the same objects)
        position = {bare(d): i for i, d in enumerate(deletions)}
        # each share's deletions (the sets just applied decide them for the whole
        # refinement); the check reads the edits, not what features they carry: a share
        # that is the same edits as in an earlier refinement has the same breaks
        shares = [[d for d in deletions if selected(d, share)]
                  for share in [*(frozenset({f}) for f in order), frozenset(everything)]]
        asked = {edits: chosen for chosen in shares
                 if (edits := tuple(bare(d) for d in chosen)) not in checked}
        if asked:
            checked.update(zip(asked, check(list(asked.values())), strict=True))
        for chosen in shares:
            picked = set(chosen)
            for path, line, deletion, node in checked[tuple(bare(d) for d in chosen)]:
                culprits = ([position[bare(deletion)]] if deletion is not None
                            and bare(deletion) in position else [] if deletion is not None else
                            where.removing(open_graph.nodes[node])
                            if node is not None and node in open_graph else [])
                users = [y for y in where.covering(path, line) if deletions[y] not in picked]
                for x in culprits:
                    if users:
                        learned |= not needs[x].issuperset(users)
                        needs[x].update(users)
                    elif x not in full_only:
                        full_only.add(x)
                        learned = True
        if not learned:
            return


def _unparsed_uses(deletions: Sequence[Deletion], unparsed: Mapping[str, bytes],
                   modules: Mapping[str, str]) -> dict[int, set[int]]:
    """x -> the deletions of unparsed files whose bytes name the module x edits or deletes
    (its last dotted part, as a word): they may import what x removes. A byte match, so
    more than the imports: deleting dead files early is always safe."""
    whole = {d.path: i for i, d in enumerate(deletions) if d.kind == "delete_file"}
    files = {path: whole[path] for path in unparsed if path in whole}
    if not files:
        return {}
    by_tail: dict[bytes, set[int]] = defaultdict(set)
    for i, d in enumerate(deletions):
        module = modules.get(d.path)
        if module and (d.kind == "delete_file" or d.category == "python-symbol"):
            by_tail[module.rpartition(".")[2].encode()].add(i)
    if not by_tail:
        return {}
    named = _word_finder(by_tail)
    out: dict[int, set[int]] = defaultdict(set)
    for path, y in files.items():
        for tail in named(unparsed[path]):
            for x in by_tail[tail]:
                if x != y:
                    out[x].add(y)
    return out


_WORD = re.compile(rb"[A-Za-z0-9_]+")


def _word_finder(tails: Collection[bytes]) -> Callable[[bytes], set[bytes]]:
    """A function giving the ``tails`` that bytes hold as a whole word (``\\b`` on both
    sides). Tails of word characters only are looked up among the words of the bytes (linear
    in their size, whatever the number of tails); any other tail makes it one pattern of
    them all."""
    if all(_WORD.fullmatch(t) for t in tails):
        wanted = frozenset(tails)
        return lambda data: set(_WORD.findall(data)) & wanted
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(t) for t in sorted(tails)) + rb")\b")
    return lambda data: {m.group(1) for m in pattern.finditer(data)}


def bare(d: Deletion) -> Deletion:
    """A deletion as the edit it makes: without what the attribution sets on it and without
    its reason (which names what else the plan deletes): the same edit in any plan."""
    return dataclasses.replace(d, feature="", features=(), with_features=(), after=(),
                               reason="")


def _freed(open_graph: Graph, where: _Locator, roots: Sequence[str],
           registrations: dict[str, list[int]]) -> set[int]:
    """Deletions that remove something live in the open graph (nothing dropped): code the
    drops freed, not code that was dead anyway. An op's registrations (``m.def``,
    ``m.impl``) remove the op."""
    live = compute_liveness(open_graph, [r for r in roots if r in open_graph]).live
    out: set[int] = set()
    for node in live:
        out.update(registrations.get(node) or where.removing(open_graph.nodes[node]))
    return out


def _apply_sets(deletions: list[Deletion], needs: dict[int, set[int]], order: Sequence[str],
                own: list[set[str]], owned: list[set[str]] | None = None,
                freed: set[int] | None = None, anyof: list[set[str]] | None = None,
                strict: bool = False) -> None:
    """``strict`` (the shares are known): ``features`` are the shares holding a deletion,
    ``after`` the features what it needs adds; else ``features`` are both."""
    rank = {f: i for i, f in enumerate(order)}
    # features: own features of everything needed, transitively (a fixpoint over the needs)
    req = [set(s) for s in own]
    changed = True
    while changed:
        changed = False
        for x, ys in needs.items():
            for y in ys:
                if not req[y] <= req[x]:
                    req[x] |= req[y]
                    changed = True
    # with_features: for deletions of no feature, the features of what needs them (and of
    # the decision that makes them dead once any of several features is dropped)
    trig: list[set[str]] = [set(s) for s in anyof] if anyof else [set() for _ in deletions]
    changed = True
    while changed:
        changed = False
        for x, ys in needs.items():
            cond = req[x] or trig[x]
            for y in ys:
                if not req[y] and not cond <= trig[y]:
                    trig[y] |= cond
                    changed = True

    # pulled: whether a deletion of some feature needs it (it must go with that feature)
    pulled = [False for _ in deletions]
    for x, ys in needs.items():
        if req[x] or trig[x]:
            for y in ys:
                pulled[y] = True

    def ordered(names: Iterable[str]) -> tuple[str, ...]:
        return tuple(sorted(names, key=lambda n: rank[n]))

    for i, d in enumerate(deletions):
        features = ordered(req[i])
        with_features = ordered(trig[i]) if not features else ()
        mine = ordered((owned or own)[i])
        after: tuple[str, ...] = ()
        if strict:  # its shares; the rest of what it waits for apart
            features, after = mine, ordered(req[i] - set(mine))
        if mine:  # its own feature (a fold relying on several: the first)
            primary = d.feature if d.feature in mine else mine[0]
        elif freed is None or i in freed or not _removes_a_node(d):
            primary = (features or after or with_features or ("",))[0]  # a knock-on
        else:
            primary = ""  # dead anyway: other dead code, whatever it must wait for
            if not pulled[i]:  # and no feature's deletion needs it gone: not the
                features = with_features = after = ()  # features' to carry out: the plan's
        deletions[i] = dataclasses.replace(d, features=features, with_features=with_features,
                                           after=after, feature=primary)


def _removes_a_node(d: Deletion) -> bool:
    """A whole file or a definition: code the graph has a node for (an import statement, a
    fold, a registry element or a CMake command has none of its own)."""
    return d.kind == "delete_file" or d.category in ("python-symbol", "native-file",
                                                     "op-registration")
