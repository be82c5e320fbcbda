"""Plan stage, soundness: dropped registry keys that live code still selects.

A dropped key (``"fa3"``) that code which stays produces as a value (assigns, defaults,
passes, returns) may be selected at run time: its registrations stay (the key is blocked),
unless the producing conditional-expression arm or ``if`` clause can be folded instead (a
behaviour decision, named in the reason). Tests and examples that select one go with the
feature.
"""

from __future__ import annotations

from collections import defaultdict
from fnmatch import fnmatchcase

from analyzer.analysis.liveness import Liveness
from analyzer.config.globs import identifier_matches
from analyzer.decide.guards import DeadRegion, arm_region
from analyzer.extract.python_branches import Branch, Clause, Cond
from analyzer.extract.python_facts import ProducedString, PythonFacts
from analyzer.model import EXPRESSION_REWRITES, Plan, Ranges, deletion_lines
from analyzer.nodes import Graph
from analyzer.resolve.python import ModuleIndex, PyModule


def produced_keys(plan: Plan, index: ModuleIndex, live: Liveness, dropped: frozenset[str],
                  forced: frozenset[tuple[str, int]] = frozenset(),
                  own: frozenset[str] = frozenset(), graph: Graph | None = None,
                  own_names: tuple[str, ...] = (), peripheral: frozenset[str] = frozenset(),
                  int_domains: tuple[tuple[str, frozenset[int]], ...] = (),
                  key_selectors: dict[str, frozenset[str]] | None = None
                  ) -> tuple[dict[str, str], dict[str, list[DeadRegion]],
                             dict[tuple[str, int], tuple[str, str]], dict[str, str]]:
    """Dropped registry keys that live code still produces as a value (assigns, defaults,
    passes or returns ``"fa3"``): such a key may be selected at run time. Where the value is
    one arm of a conditional expression whose other arm is no dropped key (``"fa3" if
    is_fa3_supported() else "triton"``), that arm goes instead (a behaviour decision, named
    in its reason). Likewise an ``if``/``elif`` clause whose every statement assigns dropped
    keys, when a later clause of the same statement assigns the same targets (``elif sm90:
    self.attention_backend = "fa3"`` / ``else: self.attention_backend = "triton"``): that
    clause never runs. Elsewhere the key is blocked: its registrations stay. Returns (key ->
    ``path:line: target = 'key'`` of the first blocking producer, module -> arm regions,
    (module, clause line) -> (key, why), peripheral path -> why it goes: a test or example
    (``peripheral``) that selects a dropped key goes with the feature instead of blocking
    it). Producers in code the plan deletes do not count, nor
    those in dead methods (with ``graph``) or in the dropped features' own code (modules
    ``own``: the platform file that names its own device, `device_name = "npu"`; functions
    and methods ``own_names`` match: `_find_quant_modelslim_config`); clauses in
    ``forced`` were folded already.

    A key whose registries all have domains (``key_selectors``: key -> the domains' last names)
    is produced only where the value can reach one (:func:`reaches_selector`): ``type=
    "flashmla"`` handed to a kernel selects no attention backend. A key only ``probed``
    registries hold (no names) is produced nowhere: ``torch.load(..., map_location="cpu")``
    selects no platform plugin.

    Integer keys (``int_domains``: a domain's pattern, its dropped integers) are not
    distinctive the way ``"fa3"`` is: an integer counts as a producer only where it reaches a
    name of the domain (``fa_version = 3``, ``fa_version=3``, a default, or ``return 3`` in
    ``get_flash_attn_version`` for the pattern ``get_flash_attn_version()``). Such a key is
    blocked under its decimal text; its producers are never folded."""
    if not dropped and not int_domains:
        return {}, {}, {}, {}
    deleted_files = {d.path for d in plan.deletions if d.kind == "delete_file"}
    gone: dict[str, Ranges] = defaultdict(Ranges)
    folded_arms: set[tuple[str, int, int]] = set()
    for d in plan.deletions:
        if d.kind != "delete_file" and d.start_line and d.rewrite not in EXPRESSION_REWRITES:
            for s, e in deletion_lines(d):
                gone[d.path].add(s, e)
        elif d.rewrite == "ifexp" and d.start_line:
            folded_arms.add((d.path, d.start_line, d.end_line or d.start_line))
    flows = selector_flows(index, key_selectors or {})
    blocked: dict[str, str] = {}
    arms: dict[str, list[DeadRegion]] = {}
    clauses: dict[tuple[str, int], tuple[str, str]] = {}
    selectors: dict[str, str] = {}
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path in deleted_files or name in own:
            continue
        produced, integers, values = _producers(mod, int_domains)
        if not integers and values.isdisjoint(dropped):
            continue  # no value here selects a dropped key (the loop below passes them all)
        methods = _method_spans(mod, graph)
        by_arm = {(p.arm_of, p.arm): p.value for p in produced if p.arm_of >= 0}
        # an Enum member's value defines the member; it selects nothing
        members = {e.start_line for lit in getattr(mod.facts, "literals", ())
                   if lit.kind == "enum" for e in lit.entries}
        branches: tuple[Branch, ...] | None = None  # (unpacked once, when first read)
        for p in (*produced, *integers):
            if (not p.integer and p.value not in dropped) or p.value in blocked:
                continue
            if not p.integer and p.value in flows and not reaches_selector(p, flows[p.value]):
                continue  # a value handed elsewhere (a kernel's `type=`): it selects nothing
            if not p.integer and p.value in flows and not flows[p.value]:
                continue  # a key only probed registries hold: no value selects it
            if p.line in members or gone[mod.path].covers(p.line, p.line):
                continue
            if not live.is_live(f"py:{name}:{p.scope}" if p.scope else f"py:{name}"):
                continue
            method = next((n for s, e, n in methods.get(p.scope, ()) if s <= p.line <= e), None)
            if method is not None and not live.is_live(method):
                continue
            owner = method.rpartition(".")[2] if method is not None else p.scope
            if own_names and owner and identifier_matches(owner, own_names):
                continue  # the dropped feature's own code selecting itself
            if p.integer:
                shown = f"{p.target} = {p.value}" if p.target else f"{p.scope}: return {p.value}"
                if mod.path in peripheral:
                    selectors.setdefault(mod.path, f"selects dropped key {p.value} "
                                                   f"(line {p.line}: {shown})")
                else:
                    blocked[p.value] = f"{mod.path}:{p.line}: {shown}"
                continue
            if branches is None:
                branches = mod.facts.branches.unpack()
            branch = next((b for b in branches if b.kind == "ifexp"
                           and b.start_byte == p.arm_of), None) if p.arm_of >= 0 else None
            if branch is not None and len(branch.clauses) == 2 and \
                    by_arm.get((p.arm_of, 2 - p.arm)) not in dropped:
                region = arm_region(branch, p.arm, f"the arm selects dropped key {p.value!r}")
                if (mod.path, region.start_line, region.end_line) not in folded_arms:
                    arms.setdefault(name, []).append(region)
                continue
            clause = _selecting_clause(mod.facts, branches, p, produced, dropped)
            # a clause folded before whose producer still counts (its fold did not hold):
            # the key is blocked after all
            if clause is not None and (name, clause.start_line) not in forced:
                clauses.setdefault((name, clause.start_line), (p.value, (
                    f"it only selects dropped key {p.value!r}; another clause selects "
                    "instead: a behaviour decision")))
                continue
            shown = f"{p.target} = {p.value!r}" if p.target else f"return {p.value!r}"
            if mod.path in peripheral:  # a test or example of the dropped feature: it goes
                selectors.setdefault(mod.path, f"selects dropped key {p.value!r} "
                                               f"(line {p.line}: {shown})")
                continue
            blocked[p.value] = f"{mod.path}:{p.line}: {shown}"
    # a key blocked anyway keeps its clauses: folding them would change behaviour for nothing
    return blocked, arms, {k: v for k, v in clauses.items() if v[0] not in blocked}, selectors


def _producers(mod: PyModule, int_domains: tuple[tuple[str, frozenset[int]], ...]
               ) -> tuple[tuple[ProducedString, ...], tuple[ProducedString, ...], frozenset[str]]:
    """A module's string producers, its integer producers that reach a name of
    ``int_domains``, and the strings' values: a function of its facts (once per scan for
    the domains: every round asks)."""
    known = mod.own.get("producers")
    if known is not None and known[0] == int_domains:
        return known[1]  # type: ignore[no-any-return]
    every = getattr(mod.facts, "produced", ())
    produced = tuple(p for p in every if not p.integer)
    integers = tuple(p for p in every if p.integer and _int_key_of(p, int_domains))
    out = (produced, integers, frozenset(p.value for p in produced))
    mod.own["producers"] = (int_domains, out)
    return out


def _int_key_of(p: ProducedString, int_domains: tuple[tuple[str, frozenset[int]], ...]
                ) -> bool:
    """Integer producer ``p`` hands a dropped integer key to a name of its domain: the last
    name it reaches (``fa_version`` of ``self.fa_version = 3``, of the keyword ``fa_version=3``
    and of a parameter default; ``f()`` for ``return 3`` in function ``f``) matches the last
    name of a domain's pattern. Matching by the last name alone over-counts (a local
    ``fa_version`` that is not the attribute), which only blocks more."""
    if p.kind == "return":
        last = p.scope.rpartition(".")[2] + "()" if p.scope else ""
    else:
        last = p.target.rpartition(".")[2]
    if not last:
        return False
    value = int(p.value)
    return any(value in ints and fnmatchcase(last, pattern.rpartition(".")[2])
               for pattern, ints in int_domains)


def _method_spans(mod: PyModule, graph: Graph | None
                  ) -> dict[str, list[tuple[int, int, str]]]:
    """Class -> (first, last line, node) of its methods that are graph nodes."""
    out: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    if graph is None:
        return out
    for m in mod.facts.method_defs:
        node = f"py:{mod.name}:{m.cls}.{m.name}"
        data = graph.nodes.get(node)
        if data is not None and data.get("start_line") == m.start_line:
            out[m.cls].append((m.start_line, m.end_line, node))
    return out


def _selecting_clause(facts: PythonFacts, branches: tuple[Branch, ...], p: ProducedString,
                      produced: tuple[ProducedString, ...], dropped: frozenset[str]
                      ) -> Clause | None:
    """The clause around producer ``p`` whose every statement assigns string values, a
    dropped key among them, when a later clause of its statement assigns the same targets, or
    when it is the final ``else``, an earlier clause assigns them and an enclosing condition
    reads them (``if self.attention_backend is None: if sm100: ... = "triton"`` / ``else: ...
    = "fa3"``); else None."""
    best: tuple[Branch, int] | None = None
    for b in branches:
        if b.kind != "if" or len(b.clauses) < 2:
            continue
        for i, c in enumerate(b.clauses):
            if c.body_start_line <= p.line <= c.end_line and (
                    best is None or c.body_start_line > best[0].clauses[best[1]].body_start_line):
                best = (b, i)
    if best is None:
        return None
    branch, i = best
    clause = branch.clauses[i]
    if not clause.body_stmts:
        return None
    at = {line: [q for q in produced if q.line == line and q.kind == "assign"]
          for line in clause.body_stmts}
    # each statement assigns a dropped key (a tuple assignment may carry companions along:
    # `self.attention_backend, platform = "fa3", "sm90"`)
    if any(not qs or not any(q.value in dropped for q in qs) for qs in at.values()):
        return None
    targets = {q.target for qs in at.values() for q in qs}

    def assigned(c: Clause) -> set[str]:
        inside = range(c.body_start_line, c.end_line + 1)
        return ({q.target for q in produced if q.kind == "assign" and q.line in inside}
                | {a.target for a in facts.attr_assigns if a.line in inside})
    if any(targets <= assigned(c) for c in branch.clauses[i + 1:]):
        return clause
    # a final `else` may go when an earlier clause assigns the same targets and an enclosing
    # condition reads each of them (`if self.attention_backend is None: ... else: ... =
    # "fa3"`): the attribute exists, the fold leaves its earlier value
    if clause.kind == "else" and any(targets <= assigned(c) for c in branch.clauses[:i]) \
            and all(_tested_around(branches, branch, t) for t in targets):
        return clause
    return None


def _tested_around(branches: tuple[Branch, ...], branch: Branch, target: str) -> bool:
    """Some ``if`` clause enclosing ``branch`` (one of ``branches``) has a condition that
    reads ``target``."""
    for b in branches:
        if b.kind != "if" or b is branch:
            continue
        for c in b.clauses:
            if c.cond is not None and c.body_start_line <= branch.start_line <= c.end_line \
                    and _reads(c.cond, target):
                return True
    return False


def _reads(cond: Cond, chain: str) -> bool:
    if cond.kind == "name" and cond.value == chain:
        return True
    return any(_reads(c, chain) for c in cond.children)


def selector_flows(index: ModuleIndex, selectors: dict[str, frozenset[str]]
                   ) -> dict[str, frozenset[str]]:
    """Per key, the names a value must reach to select it: its selectors, and every name whose
    value an assignment hands to one of them (``self.attention_backend = args.backend``
    makes ``backend`` one), to a fixpoint."""
    if not selectors:
        return {}
    edges: dict[str, set[str]] = defaultdict(set)  # target last name -> source last names
    for mod in index.modules.values():
        for a in mod.facts.attr_assigns:
            if a.cond.kind == "name" and a.cond.value:
                edges[a.attr].add(a.cond.value.rpartition(".")[2])
    out: dict[str, frozenset[str]] = {}
    for key, names in selectors.items():
        reach = set(names)
        todo = list(names)
        while todo:
            for source in edges.get(todo.pop(), ()):
                if source not in reach:
                    reach.add(source)
                    todo.append(source)
        out[key] = frozenset(reach)
    return out


def reaches_selector(p: ProducedString, names: frozenset[str]) -> bool:
    """A produced value may reach a selector: it goes to a name among ``names`` (an attribute,
    a subscript's string key, a keyword, a parameter's default), or to somewhere whose flow
    is not followed (a plain variable, a return value: counted, as the safe side)."""
    if p.kind == "return":
        return True
    target = p.target
    if p.kind in ("keyword", "default"):
        return target in names
    if "[" in target:  # a subscript: its key, when a string literal
        inner = target[target.index("[") + 1:target.rindex("]")] if "]" in target else ""
        key = inner.strip().strip("\"'")
        return key in names if inner.strip()[:1] in ("'", '"') else True
    if "." not in target:
        return True  # a variable: where it goes is not followed
    return target.rpartition(".")[2] in names
