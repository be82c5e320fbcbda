"""Analysis stage: string-keyed registries of a profile, decided for the dropped features.

Decorator registries are decided while edges are built (``graph.GraphOptions.registries``).
The literal kinds are decided here, from the extractor's literal and call facts:

- ``dict``:    ``BACKENDS = {"fa3": FlashAttn3, ...}`` — an entry under a dropped key makes no
               edges and is deleted;
- ``choices``: ``CHOICES = ["triton", "fa3", ...]`` — a dropped string element is deleted;
- ``enum``:    ``class Backend(Enum): FA3 = "pkg.fa3.Backend"`` — a member whose name or
               value is a dropped key makes no edges (its dotted path is no edge) and goes;
- ``call``:    ``Registry.register("fa3", handler)`` at module level — the call makes no edges
               (the handler is not kept by it) and goes.

Instances anywhere: a dict display (in a function too, or inside ``defaultdict(f, {...})``)
with two or more string keys a registry knows (its target's keys, every feature's keys for it,
the profile's ``keys``) is an instance of it: entries under dropped keys go the same way
(``DraftBackendFactory.create_decode_backend``'s ``backend_map``).

Members in displays: an element of a list, tuple or set display of chains naming an ``enum``
member that goes (``[Backend.FLASHMLA, Backend.TRITON_MLA]``, ``x in (Backend.FA,
Backend.ROCM_FA)``) is removed with it, when another element stays: a priority list no longer
offers it, a membership test no longer lists what nothing can be.

Members in comparisons: ``x == Backend.ROCM_FA`` outside a condition (a keyword argument, an
assignment) folds to ``False`` (``!=``: ``True``), a ``fold_branch`` with rewrite ``compare``.

Output: line ranges that make no edges (fed to the graph stage) and the deletions, each naming
the feature that owns the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.decide.guards_names import qualify
from analyzer.decide.profile_facts import ProfileUse
from analyzer.extract.python_literals import LiteralEntry
from analyzer.model import Deletion, FileInfo
from analyzer.resolve.python import ModuleIndex


@dataclass
class RegistryOutcome:
    dead_lines: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    deletions: list[Deletion] = field(default_factory=list)
    decisions: list[dict[str, object]] = field(default_factory=list)


def decide_registries(use: ProfileUse, index: ModuleIndex, files: dict[str, FileInfo],
                      cancelled: frozenset[tuple[str, int]] = frozenset()) -> RegistryOutcome:
    """``cancelled``: (path, first line) of entries a soundness check found still used
    (an enum member remaining code names): they stay, with their edges."""
    out = RegistryOutcome()
    profile = use.profile
    if profile is None:
        return out
    for reg in profile.registries:
        owner = {k: f.name for f in use.features for k in f.registry_keys.get(reg.name, ())
                 if k not in use.blocked_keys}
        if not owner:
            continue
        if reg.kind in ("dict", "choices", "enum"):
            module, _, name = reg.target.rpartition(".")
            mod = index.modules.get(module)
            if mod is None:
                continue
            literal = next((lit for lit in getattr(mod.facts, "literals", ()) if lit.name == name),
                           None)
            if literal is None:
                continue
            for entry in literal.entries:
                key = _entry_key(reg.kind, entry, owner)
                if key is None or (mod.path, entry.start_line) in cancelled:
                    continue
                _drop(out, mod.name, mod.path, files, entry.start_line, entry.end_line,
                      entry.alone, key, owner[key], reg.name, entry.value or key)
        elif reg.kind == "call":
            for mod in index.modules.values():
                for call in getattr(mod.facts, "calls", ()):
                    if call.scope or not _calls(index, mod.name, call.callee, reg.target):
                        continue
                    args = call.string_args
                    if reg.key_keyword:
                        key = dict(call.keyword_args).get(reg.key_keyword)
                    else:
                        key = args[reg.key_arg] if len(args) > reg.key_arg else None
                    if key in owner and (mod.path, call.start_line) not in cancelled:
                        _drop(out, mod.name, mod.path, files, call.start_line, call.end_line,
                              True, key, owner[key], reg.name, key)
    _instances(out, use, index, files, cancelled)
    _member_elements(out, use, index, files, cancelled)
    _member_comparisons(out, use, index, files, cancelled)
    return out


def _member_comparisons(out: RegistryOutcome, use: ProfileUse, index: ModuleIndex,
                        files: dict[str, FileInfo], cancelled: frozenset[tuple[str, int]]
                        ) -> None:
    """Comparisons with a member that goes, outside conditions (guard folding decides those):
    ``x == Backend.ROCM_FA`` becomes ``False`` (``!=`` / ``is not``: ``True``)."""
    members = _dropped_members(use, index, cancelled)
    if not members:
        return
    for name in sorted(index.modules):
        mod = index.modules[name]
        for cmp in getattr(mod.facts, "chain_comparisons", ()):
            hit = None
            for chain in cmp.chains:
                q = qualify(index, name, cmp.scope, chain)
                member = next((n for n in q[2] if n in members), None) if q else None
                if member is not None:
                    hit = (chain, member)
                    break
            if hit is None or (mod.path, cmp.line) in cancelled:
                continue
            chain, member = hit
            key, feature = members[member]
            value = "True" if cmp.op in ("!=", "is not") else "False"
            reason = (f"{cmp.text}: {chain} is a member of dropped feature {feature} "
                      f"({key!r}); folds to {value}")
            out.decisions.append({"path": mod.path, "line": cmp.line, "what": cmp.text,
                                  "reason": reason})
            out.deletions.append(Deletion(
                "fold_branch", mod.path, files[mod.path].sha256, 0, reason, cmp.line, cmp.line,
                names=(cmp.text, value, chain), category="python-branch", feature=feature,
                rewrite="compare", statement=(cmp.line, cmp.line)))


def _dropped_members(use: ProfileUse, index: ModuleIndex, cancelled: frozenset[tuple[str, int]]
                     ) -> dict[str, tuple[str, str]]:
    """Qualified name of each member of an ``enum`` registry that goes (under a dropped key,
    not cancelled) -> (its key, the feature owning it)."""
    out: dict[str, tuple[str, str]] = {}
    for reg in use.profile.registries if use.profile is not None else ():
        if reg.kind != "enum":
            continue
        owner = {k: f.name for f in use.features for k in f.registry_keys.get(reg.name, ())
                 if k not in use.blocked_keys}
        module, _, cls = reg.target.rpartition(".")
        mod = index.modules.get(module)
        if mod is None or not owner:
            continue
        lit = next((x for x in mod.facts.literals if x.name == cls and x.kind == "enum"), None)
        for entry in lit.entries if lit is not None else ():
            key = _entry_key("enum", entry, owner)
            if key is not None and entry.key and (mod.path, entry.start_line) not in cancelled:
                out[f"{reg.target}.{entry.key}"] = (key, owner[key])
    return out


def _member_elements(out: RegistryOutcome, use: ProfileUse, index: ModuleIndex,
                     files: dict[str, FileInfo], cancelled: frozenset[tuple[str, int]]) -> None:
    """Elements naming a member that goes, in displays of chains (priority lists, membership
    tuples): removed when another element stays (a display left empty keeps them all)."""
    members = _dropped_members(use, index, cancelled)
    if not members:
        return
    for name in sorted(index.modules):
        mod = index.modules[name]
        for display in getattr(mod.facts, "chain_displays", ()):
            hits = []
            for el in display.elements:
                q = qualify(index, name, display.scope, el.chain)
                member = next((n for n in q[2] if n in members), None) if q else None
                if member is not None:
                    hits.append((el, member))
            if not hits or (len(hits) == len(display.elements) and not display.others):
                continue
            if not all(el.unique for el, _ in hits) or (mod.path, display.start_line) in cancelled:
                continue
            for el, member in hits:
                key, feature = members[member]
                reason = f"{el.chain} is a member of dropped feature {feature} ({key!r})"
                out.decisions.append({"path": mod.path, "line": el.line, "what": el.chain,
                                      "reason": reason})
                out.deletions.append(Deletion(
                    "remove_list_element", mod.path, files[mod.path].sha256, 0, reason,
                    el.line, el.line, names=(el.chain,), category="registry-entry",
                    feature=feature))


def module_entries(use: ProfileUse, index: ModuleIndex, files: dict[str, FileInfo],
                   deleted: set[str], covered: set[tuple[str, int, int]]) -> list[Deletion]:
    """Entries of ``dict`` registries with a ``module_package`` whose (module, class) value
    names a module the plan deletes (``deleted``: paths): they go with it, so the registry
    names no module that is gone. ``covered``: (path, first, last line) already removed."""
    out: list[Deletion] = []
    for reg in use.profile.registries if use.profile is not None else ():
        if reg.kind != "dict" or not reg.module_package:
            continue
        module, _, name = reg.target.rpartition(".")
        mod = index.modules.get(module)
        lit = next((x for x in mod.facts.literals if x.name == name), None) \
            if mod is not None else None
        if mod is None or lit is None or mod.path in deleted:
            continue
        spans = [(s, e) for p, s, e in covered if p == mod.path]  # (removed in its file)
        for entry in lit.entries:
            target = index.modules.get(f"{reg.module_package}.{entry.module}") \
                if entry.module else None
            if target is None or target.path not in deleted or not entry.alone \
                    or any(s <= entry.start_line <= e for s, e in spans):
                continue
            reason = (f"{reg.name} entry {entry.key!r} names module {target.name}, which "
                      "the plan deletes")
            out.append(Deletion("delete_range", mod.path, files[mod.path].sha256,
                                entry.end_line - entry.start_line + 1, reason,
                                entry.start_line, entry.end_line, category="registry-entry"))
    return out


def known_keys(use: ProfileUse, index: ModuleIndex) -> dict[str, frozenset[str]]:
    """Registry -> every key it is known to have: its target literal's, every feature's
    (dropped or not), and those the profile lists."""
    profile = use.profile
    out: dict[str, frozenset[str]] = {}
    if profile is None:
        return out
    features = [*profile.features.values()]
    for reg in profile.registries:
        keys = set(reg.keys)
        for f in features:
            keys.update(f.registry_keys.get(reg.name, ()))
        if reg.kind in ("dict", "choices", "enum"):
            module, _, name = reg.target.rpartition(".")
            mod = index.modules.get(module)
            for lit in mod.facts.literals if mod is not None else ():
                if lit.name == name:
                    keys.update(e.key for e in lit.entries if e.key)
        out[reg.name] = frozenset(keys)
    return out


def _instances(out: RegistryOutcome, use: ProfileUse, index: ModuleIndex,
               files: dict[str, FileInfo], cancelled: frozenset[tuple[str, int]]) -> None:
    """Dict displays anywhere (a method's ``backend_map``, ``defaultdict(f, {...})``) with
    two or more string keys one registry knows: its instances. Their entries under dropped
    keys make no edges and go, as the registry's own."""
    known = known_keys(use, index)
    owners: dict[str, dict[str, str]] = {}
    for reg in use.profile.registries if use.profile is not None else ():
        owners[reg.name] = {k: f.name for f in use.features
                            for k in f.registry_keys.get(reg.name, ())
                            if k not in use.blocked_keys}
    done = {(d["path"], d["line"]) for d in out.decisions}
    for name in sorted(index.modules):
        mod = index.modules[name]
        for display in mod.facts.displays:
            keys = {e.key for e in display.entries}
            for reg_name, keyset in known.items():
                owner = owners.get(reg_name)
                if not owner or len(keys & keyset) < 2 or not keys & owner.keys():
                    continue
                for entry in display.entries:
                    key = entry.key
                    if key not in owner or (mod.path, entry.start_line) in cancelled \
                            or (mod.path, entry.start_line) in done:
                        continue
                    done.add((mod.path, entry.start_line))
                    _drop(out, mod.name, mod.path, files, entry.start_line, entry.end_line,
                          entry.alone, key, owner[key], f"{reg_name} (instance)",
                          entry.value or key)
                break


def _entry_key(kind: str, entry: LiteralEntry, owner: dict[str, str]) -> str | None:
    if kind == "enum":
        for candidate in (entry.key, entry.value, (entry.key or "").lower()):
            if candidate in owner:
                return candidate
        return None
    return entry.key if entry.key in owner else None


def _calls(index: ModuleIndex, module: str, callee: str, target: str) -> bool:
    head, _, rest = callee.partition(".")
    resolved = index.resolve_chain(module, "", head)
    if resolved is None:
        return False
    t = resolved[0]
    qualified = ".".join(p for p in (t.module, t.name, rest) if p)
    return qualified == target


def _drop(out: RegistryOutcome, module: str, path: str, files: dict[str, FileInfo],
          start: int, end: int, alone: bool, key: str, feature: str, registry: str,
          shown: str) -> None:
    if alone:  # an entry sharing its line keeps the line's edges: kept live, conservatively
        out.dead_lines.setdefault(module, []).append((start, end))
    reason = f"{registry} entry {key!r} belongs to dropped feature {feature}"
    out.decisions.append({"path": path, "line": start, "what": f"{registry}[{key}]",
                          "reason": reason})
    info = files[path]
    if alone:
        out.deletions.append(Deletion("delete_range", path, info.sha256, end - start + 1, reason,
                                      start, end, category="registry-entry", feature=feature))
    else:  # shares its line with other elements: the codemod removes the element only
        out.deletions.append(Deletion("remove_list_element", path, info.sha256, 0, reason,
                                      start, end, names=(shown,), category="registry-entry",
                                      feature=feature))
