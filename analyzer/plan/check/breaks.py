"""Plan stage, soundness: what "broken" means -- the one definition the plan's soundness
check and ``depgraph verify`` share.

Each function here asks a :class:`~analyzer.plan.check.view.PythonView` (the tree a plan
would leave, or a pruned tree read back from disk) one question about the code that remains
and answers with :class:`Break` values:

- **imports** (:func:`import_breaks`): every ``import`` and ``from m import n`` of every
  remaining file -- module level, function bodies, under ``if TYPE_CHECKING:`` (a
  typing-only break: runtime is fine, the user's type checker is not), inside ``try`` -- must
  name a module, package or extension that remains, and a name ``m`` still binds;
- **strings** (:func:`string_breaks`): an ``importlib.import_module("...")`` argument or a
  dotted-path string naming a module or definition of the tree must still name it;
- **chains** (:func:`chain_breaks`): ``mod.name`` and ``Class.attr`` (an enum member) read by
  remaining code must still exist;
- **files** (:func:`file_breaks`): in an edited file, a name pyflakes finds undefined more
  often than before, a module-level ``raise`` the original did not run, a function reading a
  name that lost a binding the original ran;
- **members** (:func:`member_breaks`): an attribute name remaining code reads that the
  original defined as a method and no class defines any more.

A ``Break`` carries a line-free ``key``: the same break in the original tree (a baseline
recorded once) is no break of the pruning. What to cancel so that a break goes away is the
plan's business (``analyzer.plan.check.conflicts``); verify only reports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from analyzer.extract.python_facts import TRY_IMPORT_ERROR, TYPE_CHECKING, ImportedName, ImportFact
from analyzer.model import Ranges
from analyzer.plan.check.lint import FileLint, unbound_reads
from analyzer.plan.check.view import PythonView
from analyzer.resolve.call_args import resolved_member_names
from analyzer.resolve.python import ModuleIndex, PyModule

BreakKind = str  # "import" | "typing-import" | "string" | "chain" | "undefined" | "raise" |
#                  "unbound" | "member" | ... (the native half adds its own)


@dataclass(frozen=True)
class Break:
    """Remaining code that would fail (or no longer type-check): where, what, and the module
    and name it needs (a missing module has ``name == ""``)."""

    kind: BreakKind
    path: str
    line: int
    what: str
    module: str = ""
    name: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        """The break without its line (lines move when a file is edited)."""
        return (self.kind, self.path, self.what)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


# (view, module, the lines the view removes from it) -> the module's breaks
ModuleChecks = Callable[[PythonView, PyModule, Ranges | None], list[Break]]


def python_breaks(view: PythonView, modules: Iterable[str] | None = None,
                  defined_before: dict[str, list[str]] | None = None,
                  defined_after: dict[str, list[str]] | None = None,
                  per_module: ModuleChecks | None = None) -> list[Break]:
    """Every Python break of ``view``: the checks of the module docstring, over the remaining
    ``modules`` (default: all) and, for the member check, the method names each class
    defined before and after (``defined_*``: name -> ``module:Class``). ``per_module``: what
    answers :func:`module_breaks` (the plan's checks keep each module's answer between the
    checks of a scan: ``analyzer.plan.check.module_memo``)."""
    names = sorted(view.index.modules) if modules is None else sorted(modules)
    checks = per_module or module_breaks
    out: list[Break] = []
    for name in names:
        if name in view.deleted or name not in view.index.modules:
            continue
        mod = view.index.modules[name]
        out.extend(checks(view, mod, view.gone.get(mod.path)))
    out.extend(file_breaks(view))
    if defined_before is not None and defined_after is not None:
        out.extend(member_breaks(view, defined_before, defined_after))
    return out


def module_breaks(view: PythonView, mod: PyModule, gone: Ranges | None) -> list[Break]:
    """The breaks of one remaining module's own code (``gone``: the lines the view removes
    from it): its imports, strings and chains."""
    return [*import_breaks(view, mod, gone), *string_breaks(view, mod, gone),
            *chain_breaks(view, mod, gone)]


def affected_modules(view: PythonView) -> list[str]:
    """The remaining modules whose imports, strings or chains may resolve differently from
    the original: those naming a module the view deletes, that lost a name or class
    attribute, or an extension the build no longer makes (or a package or module inside
    one), and those the view edits. Every other module breaks what it broke before."""
    changed = set(view.changed) | set(view.extensions_gone) | _reexporters(view)
    if not changed:
        return sorted({view.index.by_path[p] for p in view.gone if p in view.index.by_path})
    above: set[str] = set()  # every changed module and each package above one
    for c in changed:
        parts = c.split(".")
        above.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    out: list[str] = []
    for name, mod in view.index.modules.items():
        if name in view.deleted:
            continue
        if mod.path in view.gone:
            out.append(name)
            continue
        # a named module that is changed or a package holding one, or inside a changed one
        named, inside = _named_and_above(view.index, mod)
        if not named.isdisjoint(above) or not inside.isdisjoint(changed):
            out.append(name)
    return sorted(out)


def _named_and_above(index: ModuleIndex, mod: PyModule) -> tuple[frozenset[str], frozenset[str]]:
    """The dotted names a module names (:func:`named_modules`), and every proper prefix of
    one (the packages they are in)."""
    known = mod.derived.get("named_and_above")
    if known is None:
        named = named_modules(index, mod)
        inside = {".".join(parts[:i]) for n in named
                  for parts in (n.split("."),) for i in range(1, len(parts))}
        known = mod.derived["named_and_above"] = (named, frozenset(inside))
    return known


def _reexporters(view: PythonView) -> set[str]:
    """The modules that re-export a class that lost an attribute (``from m import C``, as
    another name or by ``*``), transitively: a chain through one of them reads the class."""
    if not view.lost_attrs:
        return set()
    classes: dict[str, set[str]] = {}  # module -> the classes it holds that lost an attribute
    for m, c in view.lost_attrs:
        classes.setdefault(m, set()).add(c)
    froms = view.index.tree_memo.get("from_imports_by_source")
    if froms is None:  # (a function of the index: once per scan)
        by_source: dict[str | None, list[tuple[str, tuple[ImportedName, ...]]]] = {}
        for name, mod in view.index.modules.items():
            for source, names in _from_imports(view.index, name, mod):
                by_source.setdefault(source, []).append((name, names))
        froms = view.index.tree_memo["from_imports_by_source"] = by_source
    out: set[str] = set()
    todo = list(classes)  # modules whose classes grew: what imports from them may grow too
    while todo:
        source = todo.pop()
        have = classes[source]
        for name, names in froms.get(source, ()):
            for n in names:
                if n.name == "*":
                    new = set(have)
                elif n.name in have:
                    new = {n.alias or n.name}
                else:
                    continue
                mine = classes.setdefault(name, set())
                if not new <= mine:
                    mine |= new
                    out.add(name)
                    todo.append(name)
    return out


def _from_imports(index: ModuleIndex, name: str,
                  mod: PyModule) -> tuple[tuple[str, tuple[ImportedName, ...]], ...]:
    """A module's ``from ... import`` statements as (absolute source, names) (a function of
    its facts: computed once per scan)."""
    known = mod.derived.get("from_imports")
    if known is None:
        known = tuple((index.absolute(name, f), tuple(f.names))
                      for f in mod.facts.imports if f.is_from)
        mod.derived["from_imports"] = known
    return known


def named_modules(index: ModuleIndex, mod: PyModule) -> frozenset[str]:
    """Every in-tree dotted name a module's imports and strings name (a function of its
    facts: computed once per scan)."""
    known = mod.derived.get("named_modules")
    if known is None:
        names: set[str] = set()
        for fact in mod.facts.imports:
            absolute = index.absolute(mod.name, fact)
            if absolute is None:
                continue
            names.add(absolute)
            if fact.is_from:
                names.update(f"{absolute}.{n.name}" for n in fact.names if n.name != "*")
        for s in mod.facts.strings:
            if s.kind == "path":
                named = index.module_at(s.value)
                if named is not None:
                    names.add(named)
            else:
                names.add(s.value.replace(":", "."))
        known = mod.derived["named_modules"] = frozenset(names)
    return frozenset(known)


# -- imports ------------------------------------------------------------------------------------
def import_breaks(view: PythonView, mod: PyModule, gone: Ranges | None) -> list[Break]:
    index = view.index
    out: list[Break] = []
    for fact in mod.facts.imports:
        if gone is not None and gone.covers(fact.start_line, fact.end_line):
            continue
        kind = "typing-import" if TYPE_CHECKING in fact.context else "import"
        absolute = (view.siblings.get((mod.name, fact.module)) if fact.level == 0 else None) \
            or index.absolute(mod.name, fact)
        if absolute is None:
            out.append(Break(kind, mod.path, fact.start_line, f"relative import "
                             f"{'.' * fact.level + fact.module} goes above the top package"))
            continue
        if not index.is_internal(absolute):
            continue
        # an extension the build no longer makes: fine where the import may fail (a handler
        # that carries on), a break where it must not
        optional = TRY_IMPORT_ERROR in fact.context
        if view.extension_gone(absolute):
            if not optional:
                out.append(Break("extension", mod.path, fact.start_line, f"import of "
                                 f"{absolute}: the build no longer makes this extension",
                                 absolute))
            continue
        if not view.module_exists(absolute):
            out.append(Break(kind, mod.path, fact.start_line, f"import of {absolute}: no such "
                             "module, package or extension target in the tree", absolute))
            continue
        if not fact.is_from or absolute in index.extensions:
            continue
        dropped = view.dropped_import_names.get((mod.path, fact.start_line), set())
        for imported in fact.names:
            if imported.name == "*" or (imported.alias or imported.name) in dropped:
                continue
            sub = f"{absolute}.{imported.name}"
            if view.extension_gone(sub):
                if not optional:
                    out.append(Break("extension", mod.path, fact.start_line, f"from {absolute} "
                                     f"import {imported.name}: the build no longer makes this "
                                     "extension", sub))
                continue
            if not provides(view, absolute, imported.name, fact):
                out.append(Break(kind, mod.path, fact.start_line,
                                 f"from {absolute} import {imported.name}: {absolute} has no "
                                 f"module, definition or extension target named "
                                 f"{imported.name}",
                                 absolute, imported.name))
    return out


def provides(view: PythonView, module: str, name: str, fact: ImportFact | None = None) -> bool:
    """``module.name`` exists in the remaining tree: a submodule, a definition or a binding
    of ``module`` (a re-export), a name its star imports or a module-level ``__getattr__``
    may give. A package importing a name from itself (``from pkg import ext`` in
    ``pkg/__init__.py``) does not provide it by that import."""
    index = view.index
    sub = f"{module}.{name}"
    if index.is_module(sub):
        return view.module_exists(sub)
    if view.lost_name(module, name):
        return False
    target = index.modules.get(module)
    if target is None:  # a namespace package or a build-installed one
        return module in index.installed_packages or any(
            module.startswith(p + ".") for p in index.installed_packages)
    if "__getattr__" in target.defs:
        return True
    own = target.bindings.get(name, [])
    if fact is not None and own and name not in target.defs \
            and all(f is fact for f, _ in own):
        return False
    return index.resolve_attr(module, name).kind != "unresolved"


# -- strings ------------------------------------------------------------------------------------
def string_breaks(view: PythonView, mod: PyModule, gone: Ranges | None) -> list[Break]:
    """``import_module("pkg.x")`` and dotted-path strings naming in-tree code that is gone.
    A dotted string counts when its longest module prefix is below the top level (a
    top-level name alone is too common a word); one that never named anything is in the
    original's breaks too."""
    index = view.index
    out: list[Break] = []
    elements = view.gone_elements.get(mod.path, set())
    imported = {(s.value, s.line) for s in mod.facts.strings if s.kind == "import_module"}
    for s in mod.facts.strings:
        if (gone is not None and gone.covers(s.line, s.line)) or (s.line, s.value) in elements:
            continue
        if s.kind == "path":  # a relative path to a Python file, loaded by its path
            named = index.module_at(s.value)
            if named is None or not view.module_exists(named):
                out.append(Break("string", mod.path, s.line, f"path {s.value!r} names no "
                                 "Python file of the tree", named or ""))
            continue
        if not index.is_internal(s.value):
            continue
        if s.kind != "import_module" and (s.value, s.line) in imported:
            continue  # the same literal, counted once as an import_module argument
        if dotted_exists(view, s.value):
            continue
        if s.kind == "import_module":
            out.append(Break("string", mod.path, s.line, f"importlib.import_module({s.value!r}) "
                             "names nothing in the tree", s.value))
            continue
        prefix = module_prefix(index, s.value, view)
        if prefix is not None and "." in prefix:
            kind = "package" if prefix in index.packages else "module"
            out.append(Break("string", mod.path, s.line, f"dotted path {s.value!r} names "
                             f"nothing in the tree ({kind} {prefix} exists)", s.value))
    return out


def dotted_exists(view: PythonView, dotted: str) -> bool:
    """A dotted path (``pkg.mod``, ``pkg.mod.Class``, ``pkg.mod:Class``) names a module or a
    definition of the remaining tree."""
    target = view.index.resolve_dotted(dotted)
    if target.kind == "unresolved":
        return False
    if target.kind == "external":
        return True
    if not view.module_exists(target.module):
        return False
    head = (target.name or "").split(".")[0]
    if target.kind == "module" or not head:
        return True
    # the name the string reaches in its module: a re-export is checked at its import
    parts = dotted.replace(":", ".").split(".")
    owner = module_prefix(view.index, dotted)
    first = parts[len(owner.split(".")):][:1] if owner else []
    return not (owner and first and view.lost_name(owner, first[0]))


def module_prefix(index: ModuleIndex, dotted: str, view: PythonView | None = None
                  ) -> str | None:
    """The longest prefix of ``dotted`` that is a module or package (of the remaining tree
    when ``view`` is given)."""
    parts = dotted.replace(":", ".").split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if index.is_module(prefix) and (view is None or view.module_exists(prefix)):
            return prefix
    return None


# -- chains -------------------------------------------------------------------------------------
def chain_breaks(view: PythonView, mod: PyModule, gone: Ranges | None) -> list[Break]:
    """Chains remaining code reads through a module-level name or class attribute that is
    gone (``ops.npu_norm``, ``Backend.NPU``)."""
    if not view.lost_names and not view.lost_attrs:
        return []
    watched = view.lost_anywhere()
    if watched.isdisjoint(chain_tails(mod)):
        return []  # no chain of the module reads a lost name past its head
    index = view.index
    elements = view.gone_elements.get(mod.path, set())
    out: list[Break] = []
    for ref in mod.facts.references:
        parts = ref.chain.split(".")
        if len(parts) < 2 or watched.isdisjoint(parts[1:]):
            continue
        lines = [ln for ln in (ref.line, *ref.also)
                 if not (gone is not None and gone.covers(ln, ln)) and (ln, ref.chain)
                 not in elements and not index.dead_read(mod.name, ref.chain, ln)]
        if not lines:
            continue
        for target, _type_only, _line in index.resolve_chain_all(mod.name, ref.scope, parts[0]):
            current = target
            for part in parts[1:]:
                if current.kind == "module":
                    if view.lost_name(current.module, part) \
                            and not index.is_module(f"{current.module}.{part}"):
                        out.append(Break("chain", mod.path, lines[0], _gone(
                            ref.chain, f"{current.module}.{part}"), current.module, part))
                        break
                    current = index.resolve_attr(current.module, part)
                    continue
                if current.kind == "symbol" and current.name and \
                        view.lost_attr(current.module, current.name, part):
                    out.append(Break("chain", mod.path, lines[0], _gone(
                        ref.chain, f"{current.name}.{part}"), current.module, part))
                break
    return out


def chain_tails(mod: PyModule) -> frozenset[str]:
    """Every name the module's reference chains read past their head (``b``, ``c`` of
    ``a.b.c``): a function of its facts, computed once per scan."""
    known = mod.own.get("chain_tails")
    if known is None:
        known = mod.own["chain_tails"] = frozenset(
            part for ref in mod.facts.references for part in ref.chain.split(".")[1:])
    return known


def _gone(chain: str, what: str) -> str:
    return f"{what} is gone" if chain == what else f"{chain}: {what} is gone"


# -- edited files -------------------------------------------------------------------------------
def file_breaks(view: PythonView) -> list[Break]:
    """What each edited file breaks in itself (``view.before`` against ``view.after``)."""
    out: list[Break] = []
    for path, after in sorted(view.after.items()):
        before = view.before.get(path)
        if before is not None:
            out.extend(lint_breaks(path, before, after))
    return out


def lint_breaks(path: str, before: FileLint, after: FileLint) -> list[Break]:
    out: list[Break] = []
    for name, n in sorted(after.undefined.items()):
        if n > before.undefined.get(name, 0):
            out.append(Break("undefined", path, after.undefined_lines.get(name, 0),
                             f"undefined name {name!r} (new after pruning)", name=name))
    if len(after.raises) > len(before.raises):
        out.append(Break("raise", path, after.raises[0], "the module now raises when imported "
                         "(a module-level raise the original did not run)"))
    for func, var, n, now in unbound_reads(before, after):
        out.append(Break("unbound", path, after.function_lines.get(func, 0),
                         f"{func}: {var!r} may be unbound (bound {n} times "
                         f"before, {now} now)", name=var))
    return out


# -- methods ------------------------------------------------------------------------------------
def member_breaks(view: PythonView, before: dict[str, list[str]],
                  after: dict[str, list[str]]) -> list[Break]:
    """Reads of a name that a class which remains defined as a method in the original and
    does not define now: the read may be of it (whatever other classes define the name). A
    skeleton (``forward_*``) reads every name it matches; an enumeration of attributes
    (``*``) every method its own module lost."""
    index = view.index

    def remains(qualified: str) -> bool:
        module, _, cls = qualified.partition(":")
        mod = index.modules.get(module)
        return module not in view.deleted and mod is not None \
            and mod.defs.get(cls) == "class" and cls not in view.lost_names.get(module, ())

    def lost_classes(name: str, classes: list[str]) -> list[str]:
        now = after.get(name)
        if not now:
            return [c for c in classes if remains(c)]
        kept = set(now)
        return [c for c in classes if c not in kept and remains(c)]

    lost = {name: lost_classes(name, classes) for name, classes in before.items()}
    lost = {name: classes for name, classes in lost.items() if classes}
    if not lost:
        return []
    out: list[Break] = []
    lost_by_module: dict[str, list[str]] = {}  # module -> the lost names its classes had
    for n, cs in lost.items():
        for m in dict.fromkeys(c.partition(":")[0] for c in cs):
            lost_by_module.setdefault(m, []).append(n)
    matching: dict[str, list[str]] = {}  # skeleton -> the lost names it matches
    for mod, gone in view.remaining():
        plain, patterned = _member_names(mod)
        if not patterned and lost.keys().isdisjoint(plain):
            continue  # it reads none of the lost names
        uses = mod.own.get("member_uses")
        if uses is None:  # (kept pickled in the facts: unpacked once, for every round)
            uses = mod.own["member_uses"] = mod.facts.member_uses.unpack()
        for use in uses:
            if use.name == "*":
                hit = lost_by_module.get(mod.name, [])
            elif "*" in use.name:
                resolved = resolved_member_names(mod, use.scope, use.lines, use.name)
                if resolved is not None:
                    hit = [n for n in resolved if n in lost]
                else:
                    if use.name not in matching:
                        matching[use.name] = [n for n in lost if fnmatchcase(n, use.name)]
                    hit = matching[use.name]
            else:
                hit = [use.name] if use.name in lost else []
            if not hit:
                continue
            line = next((ln for ln in use.lines if (gone is None or not gone.covers(ln, ln))
                         and not index.dead_read(mod.name, "." + use.name, ln)), None)
            if line is None:
                continue
            for name in hit:
                out.append(Break("member", mod.path, line, f"reads .{name}, which "
                                 f"{lost[name][0]} defined in the original tree and no class "
                                 "defines now", lost[name][0].partition(":")[0], name))
    return out


def _member_names(mod: PyModule) -> tuple[frozenset[str], bool]:
    """The member names a module reads by name, and whether it reads any by a pattern
    (``*``, a skeleton such as ``forward_*``): a function of its facts, computed once per
    scan."""
    known = mod.own.get("member_names")
    if known is None:
        names = mod.facts.member_names
        known = mod.own["member_names"] = (
            frozenset(n for n in names if "*" not in n), any("*" in n for n in names))
    return known


def defined_methods(index: ModuleIndex, deleted_methods: Iterable[str] = (),
                    deleted_modules: frozenset[str] = frozenset(),
                    names: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Method name -> the classes (``module:Class``) that define it (methods of top-level
    classes), less ``deleted_methods`` (``module:Class.method``) and what deleted modules
    define; only of the method ``names`` given (default: all)."""
    everything: dict[str, list[str]] | None = index.tree_memo.get("defined_methods")
    if everything is None:
        found: dict[str, set[str]] = {}
        for name, mod in index.modules.items():
            for m in mod.facts.method_defs:
                found.setdefault(m.name, set()).add(f"{name}:{m.cls}")
        everything = index.tree_memo["defined_methods"] = {k: sorted(v)
                                                          for k, v in found.items()}
    gone = set(deleted_methods)
    wanted = everything if names is None else {n: everything[n] for n in names
                                                if n in everything}
    if not gone and not deleted_modules:
        return dict(wanted)
    out = {n: [c for c in classes if c.partition(":")[0] not in deleted_modules
               and f"{c}.{n}" not in gone] for n, classes in wanted.items()}
    return {n: classes for n, classes in out.items() if classes}
