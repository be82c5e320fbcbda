"""Analysis stage, guard folding: evaluating ``Cond`` trees from declared facts.

Input: a condition (``analyzer.extract.python.Cond``) read in a scope of a module, the module
index (resolve stage) and a ``GuardContext`` (declared constants, dropped registry keys, dead
imports). Output: the condition's value, or ``UNKNOWN``. Nothing is imported or executed: a
value is known only when the context declares it (platform probes, module flags, env flags),
when a module-level ``NAME = expr`` folds from declared facts, or for literals.

Three-valued logic: ``and`` / ``or`` / ``not`` follow Kleene's rules on truthiness, a
comparison with an unknown operand is unknown (except against dropped registry keys, see
``GuardContext.domains``), and anything else (subscripts, arithmetic, ``sys.version_info``,
calls nobody declared, bare references to functions) is unknown, which keeps code live.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

from analyzer.config.globs import WILDCARDS, any_identifier_matches, identifier_regex
from analyzer.decide.guards_names import (
    AttributeTable,
    chain_tails,
    class_tables,
    closure,
    domain_chain,
    qualify,
)
from analyzer.extract.python_branches import Cond
from analyzer.resolve.python import SHAPE_READS, Dependency, ModuleIndex, shape_read


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:  # pragma: no cover - guards against accidental truth tests
        raise TypeError("UNKNOWN has no truth value")


UNKNOWN = _Unknown()
# What an evaluation read of its context, for a fold to be reused under another context when
# every read answers the same there (``analyzer.decide.fold_reuse``):
#   ("k", name)         the constant ``name`` (exact keys, then glob keys)
#   ("K", key)          the constants mapping at ``key`` as written (env flags)
#   ("d", chain)        the domains ``chain`` falls in
#   ("M",) / ("m", q)   whether any enum member is dropped / whether ``q`` is
#   ("p", method)       whether ``method`` is a false predicate
#   ("f", module, line) the forced reason of a clause
#   ("I",) / ("i", m)   whether any import is dead / whether module ``m`` is
# what it read of the tree besides its own module: ("r", module), that module's facts, and
# ("T",), every module's (the assignments of an attribute name, the classes' bases);
# ("S", read), a read of the tree's shape (``"in:app.flags"``: whether a name is a module;
# noted in a fold record's frame, ``ModuleIndex.noting(shape=True)``); and two
# that are no reads: ("s", attr), an attribute name the evaluation looked up tree-wide
# (``ModuleIndex.sought_by_name``), and TAINT: a cycle cut the evaluation met, whose value
# depends on the order names were asked in (nothing tainted is reused).
Probe = tuple[str, ...]
TAINT: Probe = ("!",)
_TRUTHY_STR = {"1", "true", "yes", "on", "y", "t"}
_INT = re.compile(r"-?[0-9]+")
_FALSY_STR = {"0", "false", "no", "off", "n", "f", ""}


@dataclass(frozen=True)
class GlobKeys:
    """The glob keys of a context's constants, in its order: a name no exact key answers
    takes the value of the first that matches it (:meth:`first`). The evaluation reads
    them so, and so does the reuse of folds under another context
    (``analyzer.decide.fold_reuse``): one definition for both."""

    items: tuple[tuple[str, object], ...]
    any_glob: re.Pattern[str] | None  # one regex for all: a name none matches, one call

    @classmethod
    def of(cls, constants: Mapping[str, object]) -> GlobKeys:
        items = tuple((k, v) for k, v in constants.items() if not WILDCARDS.isdisjoint(k))
        return cls(items, identifier_regex(tuple(k for k, _v in items)))

    def first(self, name: str) -> tuple[str, object] | None:
        """The first glob key matching ``name``, with its value (None: none does)."""
        if self.any_glob is None or self.any_glob.match(name) is None:
            return None
        return next(((k, v) for k, v in self.items if fnmatchcase(name, k)), None)


def first_domain(domains: tuple[tuple[str, frozenset[str | int]], ...], tails: list[str]
                 ) -> tuple[str, frozenset[str | int]] | None:
    """The first of ``domains`` whose pattern matches one of a chain's ``tails``, with its
    dropped keys (None: none does): the domain a comparison of the chain is decided by."""
    return next(((pattern, dropped) for pattern, dropped in domains
                 if any_identifier_matches(tails, (pattern,))), None)


@dataclass(frozen=True)
class GuardContext:
    """What the user declares about the target platform and the dropped features.

    ``constants``: qualified name (or fnmatch glob over qualified names) -> value. A function's
    name folds its *call* (``pkg.utils.is_npu`` -> ``is_npu()``; a bare reference to the
    function object stays unknown); a module-level variable folds its reads
    (``pkg.mod._is_hip``); a method of a module-level object folds its call
    (``vllm.platforms.current_platform.is_rocm``); ``env:NAME`` folds an env flag: a call
    whose first string argument is NAME and whose callee mentions ``env``
    (``get_bool_env_var("NAME")``, ``os.environ.get("NAME")``, ``os.getenv("NAME")``), or a
    chain ending in ``.NAME`` / ``.NAME.get`` (``envs.NAME.get()``).

    ``domains``: (fnmatch pattern over a dotted chain, or any of its dotted tails; the set of
    dropped keys: strings, and integers of integer-valued registries). ``chain == "fa3"``
    folds to False and ``chain != "fa3"`` to True when ``"fa3"`` is dropped; ``chain in
    (...)`` folds to False (``not in`` to True) when all the listed strings are dropped;
    ``chain == 3`` as ``== "fa3"`` when the integer 3 is dropped. A zero-argument call is the
    chain ``f()`` (``get_flash_attn_version() == 3`` matches the pattern
    ``get_flash_attn_version()``).

    ``dead_imports``: absolute modules (fnmatch globs allowed; submodules included) that will
    not exist: a ``try:`` body importing one fails, its except clause runs.

    ``fold_type_checking``: ``TYPE_CHECKING`` always evaluates to False; ``if TYPE_CHECKING:``
    blocks are reported as dead only when this is set (they feed type checkers).
    """

    constants: Mapping[str, object]
    domains: tuple[tuple[str, frozenset[str | int]], ...] = ()
    dead_imports: frozenset[str] = frozenset()
    fold_type_checking: bool = False
    # (module, first line of an if/elif clause) -> why the clause never runs: it only selects
    # dropped registry keys and a later clause of its statement selects instead
    forced: Mapping[tuple[str, int], str] = field(default_factory=dict)
    # qualified names of enum registry members under dropped keys ("pkg.mod.Backend.NPU"):
    # `x == Backend.NPU` / `x is Backend.NPU` fold to False, `!=` / `is not` to True, and
    # `x in (Backend.NPU, ...)` to False when every member listed is dropped
    dropped_members: frozenset[str] = frozenset()
    # names of enum predicate methods (`def is_npu(self): return self == Backend.NPU`) of
    # dropped members, defined by no other class: `<anything>.is_npu()` folds to False
    false_predicates: frozenset[str] = frozenset()

    def digest(self) -> str:
        """A digest of every field, the same in every run (sets and mappings in sorted
        order): what the folds of one tree are a function of, besides the tree."""
        return hashlib.sha256(repr(_canonical(dataclasses.astuple(self))).encode()).hexdigest()


def _canonical(value: object) -> object:
    """``value`` with its sets and mappings as sorted tuples (``repr`` then does not depend
    on hash order)."""
    if isinstance(value, Mapping):
        return ("{", tuple(sorted(((_canonical(k), _canonical(v)) for k, v in value.items()),
                                  key=repr)))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted((_canonical(v) for v in value), key=repr)))
    if isinstance(value, (tuple, list)):
        return tuple(_canonical(v) for v in value)
    return value


def truth(value: object) -> object:
    """Truthiness of a value: True, False or UNKNOWN."""
    return UNKNOWN if value is UNKNOWN else bool(value)


@dataclass
class Evaluator:
    """Evaluates conditions against one index and context; memoises module-level names."""

    index: ModuleIndex
    ctx: GuardContext
    # (module, name) -> (value, the constants/domains it came from, what it read: probes)
    _memo: dict[tuple[str, str], tuple[object, list[str], frozenset[Probe]]] = field(
        default_factory=dict)
    _active: set[tuple[str, str]] = field(default_factory=set)
    # what the evaluations since it was last emptied read of the context (see ``Probe``)
    probes: set[Probe] = field(default_factory=set)
    _computing: set[tuple[str, str]] = field(default_factory=set)  # instance_attr's, asked
    # the tree-wide tables ("attributes", "bases", "children"): functions of the index, one
    # dict for the evaluators of the contexts folded together (built when first asked)
    tables: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._exact = {k: v for k, v in self.ctx.constants.items() if WILDCARDS.isdisjoint(k)}
        self._globs = GlobKeys.of(self.ctx.constants)
        self._assigns: dict[str, dict[str, list[Cond]]] = {}
        self.used: list[str] = []  # constants/domains the current evaluation relied on
        # attribute name -> every assignment that may set it, tree-wide (built on first use)
        self._attr_sets: AttributeTable | None = None
        self._subclasses: dict[str, tuple[str, ...]] | None = None  # class name -> base names
        self._children: dict[str, list[str]] = {}  # class name -> names of its subclasses
        self._related_memo: dict[str, set[str]] = {}

    # -- constants -------------------------------------------------------------------------
    def constant(self, names: list[str]) -> tuple[str, object] | None:
        self.probes.update(("k", name) for name in names)
        for name in names:
            if name in self._exact:
                return name, self._exact[name]
        for name in names:
            found = self._globs.first(name)
            if found is not None:
                return found
        return None

    def _note(self, what: str) -> None:
        if what not in self.used:
            self.used.append(what)

    # -- evaluation ------------------------------------------------------------------------
    def eval(self, module: str, scope: str, cond: Cond) -> object:
        """Value of ``cond`` (Python semantics where known) or UNKNOWN; ``used`` then lists
        the declared facts the value came from."""
        self.used = []
        try:
            return self._eval(module, scope, cond)
        except RecursionError:  # pathological nesting: stay live
            self.probes.add(TAINT)  # (how deep it got depends on what was asked before)
            return UNKNOWN

    def _eval(self, module: str, scope: str, cond: Cond) -> object:
        kind = cond.kind
        if kind == "const":
            return _const(cond.value)
        if kind == "str":
            return cond.value
        if kind == "strs":
            return tuple(cond.args)
        if kind == "not":
            v = truth(self._eval(module, scope, cond.children[0])) if cond.children else UNKNOWN
            return UNKNOWN if v is UNKNOWN else not v
        if kind in ("and", "or"):
            return self._bool_op(module, scope, kind, cond.children)
        if kind == "cmp":
            return self._cmp(module, scope, cond)
        if kind == "name":
            return self._name(module, scope, cond.value)
        if kind == "call":
            return self._call(module, scope, cond)
        return UNKNOWN

    def _bool_op(self, module: str, scope: str, op: str, children: tuple[Cond, ...]) -> object:
        """Python's value semantics where operands are known, Kleene truthiness otherwise."""
        result: object = op == "and"
        pending_unknown = False
        for child in children:
            value = self._eval(module, scope, child)
            t = truth(value)
            if t is UNKNOWN:
                pending_unknown = True
                continue
            if (op == "and" and not t) or (op == "or" and t):
                # short-circuits: the result is this value, or an unknown earlier operand
                # of the same truthiness: the truthiness is known either way
                return value if not pending_unknown else t
            result = value
        return UNKNOWN if pending_unknown else result

    def _cmp(self, module: str, scope: str, cond: Cond) -> object:
        if len(cond.children) != 2:
            return UNKNOWN
        op = cond.value
        left, right = cond.children
        domain = self._domain(op, left, right)
        if domain is not UNKNOWN:
            return domain
        member = self._member_cmp(module, scope, op, left, right)
        if member is not UNKNOWN:
            return member
        a = self._eval(module, scope, left)
        b = self._eval(module, scope, right)
        env = self._env_string_cmp(op, a, b, left, right)
        if env is not UNKNOWN:
            return env
        if a is UNKNOWN or b is UNKNOWN:
            return UNKNOWN
        try:
            if op == "==":
                return a == b
            if op == "!=":
                return a != b
            if op == "is":
                return a is b if a is None or b is None or isinstance(a, bool) else UNKNOWN
            if op == "is not":
                return a is not b if a is None or b is None or isinstance(a, bool) else UNKNOWN
            if op in ("in", "not in") and isinstance(b, (tuple, str)):
                found = a in b
                return found if op == "in" else not found
            if op in ("<", "<=", ">", ">=") and type(a) is int and type(b) is int:
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        except TypeError:
            return UNKNOWN
        return UNKNOWN

    def _domain(self, op: str, left: Cond, right: Cond) -> object:
        """``chain == "dropped"`` and friends, from ``GuardContext.domains``."""
        if right.kind in ("name", "call") and left.kind in ("str", "const") and op in (
                "==", "!="):
            left, right = right, left
        chain = domain_chain(left)
        keys: tuple[str | int, ...]
        if right.kind == "str":
            keys = (right.value,)
        elif right.kind == "strs":
            keys = right.args
        elif right.kind == "const" and _INT.fullmatch(right.value) and op in ("==", "!="):
            keys = (int(right.value),)
        else:
            return UNKNOWN
        if chain is None or not keys:
            return UNKNOWN
        self.probes.add(("d", chain))
        domain = first_domain(self.ctx.domains, chain_tails(chain))
        if domain is None:
            return UNKNOWN
        pattern, dropped = domain
        if not all(k in dropped for k in keys):
            return UNKNOWN
        self._note(f"{chain}: {', '.join(sorted(map(str, keys)))} dropped ({pattern})")
        single = right.kind != "strs"
        if op in ("==", "in") and (op == "in" or single):
            return False
        if op in ("!=", "not in") and (op == "not in" or single):
            return True
        return UNKNOWN

    def _member_cmp(self, module: str, scope: str, op: str, left: Cond, right: Cond
                    ) -> object:
        """``x == Enum.DROPPED`` and friends, from ``GuardContext.dropped_members``."""
        self.probes.add(("M",))
        if not self.ctx.dropped_members:
            return UNKNOWN
        if op in ("==", "!=", "is", "is not"):
            for this, other in ((right, left), (left, right)):
                name = self._dropped_member(module, scope, this)
                if name is not None and other.kind != "const":
                    self._note(f"{name}: a dropped enum member")
                    return op in ("!=", "is not")
            return UNKNOWN
        if op in ("in", "not in") and right.kind == "tuple" and right.children:
            names = [self._dropped_member(module, scope, c) for c in right.children]
            if all(names):
                self._note(f"{', '.join(str(n) for n in names)}: dropped enum members")
                return op == "not in"
        return UNKNOWN

    def _dropped_member(self, module: str, scope: str, cond: Cond) -> str | None:
        if cond.kind != "name" or "." not in cond.value:
            return None
        q = qualify(self.index, module, scope, cond.value)
        if q is None:
            return None
        self.probes.update(("m", n) for n in q[2])
        return next((n for n in q[2] if n in self.ctx.dropped_members), None)

    def _env_string_cmp(self, op: str, a: object, b: object, left: Cond, right: Cond) -> object:
        """``os.getenv("X") == "1"`` with env flag X declared as a bool."""
        if op not in ("==", "!=") or not (isinstance(a, bool) and isinstance(b, str)
                                          and self._is_env(left)):
            return UNKNOWN
        if b.lower() in _TRUTHY_STR:
            equal = a
        elif b.lower() in _FALSY_STR:
            equal = not a
        else:
            return UNKNOWN
        return equal if op == "==" else not equal

    def _is_env(self, cond: Cond) -> bool:
        return cond.kind == "call" and self._env_value(cond) is not None

    # -- names and calls -------------------------------------------------------------------
    def _name(self, module: str, scope: str, chain: str) -> object:
        if chain in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            return False
        head, _, attr = chain.partition(".")
        if head == "self" and attr and "." not in attr and scope:
            return self.instance_attr(module, scope, attr)
        env = self._env_chain(chain)
        if env is not None:
            return env[1]
        q = qualify(self.index, module, scope, chain)
        if q is None:
            return UNKNOWN
        target, rest, names = q
        if target is not None and target.kind == "symbol" and not rest:
            return UNKNOWN  # a function or class object: truthy, but not what was meant
        found = self.constant(names)
        if found is not None and not (rest and target is not None
                                      and target.kind in ("symbol", "attribute")):
            self._note(f"{found[0]} = {found[1]!r}")
            return found[1]
        if target is not None and target.kind == "attribute" and not rest and target.name:
            return self.module_name(target.module, target.name)
        return UNKNOWN

    def _call(self, module: str, scope: str, cond: Cond) -> object:
        if cond.value == "hasattr" and cond.args and cond.children \
                and cond.children[0].kind == "name":
            return self._hasattr(module, scope, cond.children[0].value, cond.args[0])
        env = self._env_value(cond)
        if env is not None:
            self._note(f"{env[0]} = {env[1]!r}")
            return env[1]
        method = cond.value.rpartition(".")[2]
        if "." in cond.value and not cond.args and not cond.children \
                and self._false_predicate(method):
            self._note(f"{method}(): tests for a dropped enum member")
            return False
        if "()" in cond.value:
            return UNKNOWN
        q = qualify(self.index, module, scope, cond.value)
        if q is None:
            return UNKNOWN
        found = self.constant(q[2])
        if found is None:
            return UNKNOWN
        self._note(f"{found[0]} = {found[1]!r}")
        return found[1]

    def _false_predicate(self, method: str) -> bool:
        self.probes.add(("p", method))
        return method in self.ctx.false_predicates

    def _raw_constant(self, key: str) -> tuple[str, object] | None:
        """The constants mapping at ``key`` as written (no glob matching)."""
        self.probes.add(("K", key))
        return (key, self.ctx.constants[key]) if key in self.ctx.constants else None

    def _hasattr(self, module: str, scope: str, chain: str, attr: str) -> object:
        """``hasattr(obj, "name")`` folds when the profile declares ``hasattr:<obj>.<name>``
        (``obj`` qualified like any name: ``hasattr:torch.ops.sgl_kernel.fwd``)."""
        q = qualify(self.index, module, scope, chain)
        names = [f"hasattr:{n}.{attr}" for n in (q[2] if q else [])]
        names.append(f"hasattr:{chain}.{attr}")  # external objects: as written
        found = self.constant(names)
        if found is None:
            return UNKNOWN
        self._note(f"{found[0]} = {found[1]!r}")
        return found[1]

    def _env_value(self, cond: Cond) -> tuple[str, object] | None:
        if cond.args and "env" in cond.value.lower():
            found = self._raw_constant(f"env:{cond.args[0]}")
            if found is not None:
                return found
        callee = cond.value
        if callee.endswith(".get") and not cond.args:
            return self._env_chain(callee[: -len(".get")])
        return None

    def _env_chain(self, chain: str) -> tuple[str, object] | None:
        if "." not in chain:
            return None
        return self._raw_constant(f"env:{chain.rsplit('.', 1)[1]}")

    def module_name(self, module: str, name: str) -> object:
        """Value of module-level ``name`` of ``module``: a declared constant, else its sole
        unconditional assignment evaluated in that module (memoised, cycle-guarded). A value
        that owes nothing to declared facts (``fa_ver = 3``) stays unknown: other code may
        set it; so does a name rebound anywhere else in its module (``global``, ``if``)."""
        key = (module, name)
        known = self._memo.get(key)
        if known is None:  # (what it reads is noted apart, and kept with its value)
            with self._apart() as read:
                return self._module_name(module, name, key, read)
        value, notes, probes = known
        self.probes |= probes
        for note in notes:
            self._note(note)
        return value

    def _module_name(self, module: str, name: str, key: tuple[str, str],
                     read: set[Dependency]) -> object:
        found = self.constant([f"{module}.{name}"])
        if found is not None:
            self._note(f"{found[0]} = {found[1]!r}")
            return found[1]
        if key in self._active:
            self.probes.add(TAINT)
            return UNKNOWN
        conds = self._module_assigns(module).get(name, [])
        mod = self.index.module(module)
        bound = [d for d in mod.facts.definitions if d.name == name] if mod else []
        if len(conds) != 1 or len(bound) != 1 or (mod is not None and name in mod.bindings):
            # rebound elsewhere (conditionally, or imported)
            self._memo[key] = (UNKNOWN, [], self._kept(read))
            return UNKNOWN
        self._active.add(key)
        outer, self.used = self.used, []
        try:
            value = self._eval(module, "", conds[0])
        finally:
            self._active.discard(key)
            notes, self.used = self.used, outer
        if not notes:  # literal-only module variables are settings others may change
            value = UNKNOWN
        elif value is not UNKNOWN:
            notes = [*notes, f"{module}.{name} = {value!r}"]
        self._memo[key] = (value, notes, self._kept(read))
        for note in notes:
            self._note(note)
        return value

    @contextmanager
    def _apart(self) -> Iterator[set[Dependency]]:
        """The probes of a memoised value's evaluation noted apart (to be kept with it), and
        the modules the index reads for it (the frame yielded); both go to the caller's
        after."""
        outer, self.probes = self.probes, set()
        try:
            with self.index.noting() as read:
                yield read
        finally:
            outer |= self.probes
            self.probes = outer

    def _kept(self, read: set[Dependency]) -> frozenset[Probe]:
        """What a memoised value read: its probes, and the modules whose facts the index
        read for it (``read``, a :meth:`ModuleIndex.noting` frame)."""
        return frozenset(self.probes.union(tree_reads(read)))

    def instance_attr(self, module: str, cls: str, attr: str) -> object:
        """``self.attr`` read in a method of class ``cls``: the value of its one assignment,
        when nothing else may set it -- no other assignment in the class, none in a class
        related by name (a base or a subclass), no ``x.attr =`` elsewhere, no class attribute
        of that name anywhere -- and the value owes something to declared facts
        (``self.use_nsa = is_deepseek_nsa(config)``). Unknown otherwise."""
        mod = self.index.module(module)
        if mod is None or mod.defs.get(cls) != "class":
            return UNKNOWN
        key = (module, f"{cls}.self.{attr}")
        known = self._memo.get(key)
        if known is not None:
            if key in self._computing:  # asked again while being answered: a cycle cut
                self.probes.add(TAINT)
            value, notes, probes = known
            self.probes |= probes
            for note in notes:
                self._note(note)
            return value
        self._memo[key] = (UNKNOWN, [], frozenset())  # cycle guard
        self._computing.add(key)
        try:
            with self._apart() as read:
                value, notes = self._instance_attr(module, cls, attr)
                if value is not UNKNOWN:
                    # decided because nothing else assigns it: a file assigning it anywhere
                    # would undo it
                    self.index.sought_by_name.add(attr)
                    self.probes.add(("s", attr))
                self._memo[key] = (value, notes, self._kept(read))
        finally:
            self._computing.discard(key)
        for note in notes:
            self._note(note)
        return value

    def _instance_attr(self, module: str, cls: str, attr: str) -> tuple[object, list[str]]:
        """The value and notes of :meth:`instance_attr` (UNKNOWN and none when anything is
        odd)."""
        self.probes.add(("T",))  # (the assignments and classes of every module)
        sets = self._attribute_sets().get(attr)
        if sets is None:
            return UNKNOWN, []  # (no assignment: not the one assignment asked for)
        mine = sets.at.get((module, cls, f"self.{attr}"), ())
        # any other assignment that is not `self.attr = ...` in a class (a class attribute,
        # `x.attr =`): the one in hand never is one (``cls`` is a class), so it is the table's
        if len(mine) != 1 or sets.odd:
            return UNKNOWN, []
        related = self._related(cls)
        # the assignments of the classes related by name, in the table's order
        others = sorted(i for scope in related for i in sets.in_class.get(scope, ())
                        if i != mine[0])
        outer, self.used = self.used, []
        try:
            value = self._eval(module, cls, sets.items[mine[0]][1].cond)
            # a base or subclass may assign it too: only the same declared value will do
            # (`self.nsa_enable_prefill_cp = is_nsa_enable_prefill_cp()` in several layers)
            for m, a in (sets.items[i] for i in others):
                if value is UNKNOWN or self._eval(m, a.scope, a.cond) != value:
                    value = UNKNOWN
                    break
        finally:
            notes, self.used = self.used, outer
        if not notes or value is UNKNOWN:  # literal-only: a setting other code may change
            return UNKNOWN, []
        return value, [*notes, f"{module}.{cls}: self.{attr} = {value!r}"]

    def _attribute_sets(self) -> AttributeTable:
        """Attribute name -> every assignment that may set it, tree-wide (one table for the
        evaluators sharing ``tables``, each name's sets made when first asked)."""
        if self._attr_sets is None:
            table = self.tables.get("attributes")
            if table is None:
                table = self.tables["attributes"] = AttributeTable(self.index)
            self._attr_sets = table
        return self._attr_sets

    def _related(self, cls: str) -> set[str]:
        """Class names that may be a base or a subclass of ``cls`` (by name, transitively;
        names are short: a collision only makes more classes related)."""
        memo = self._related_memo.get(cls)
        if memo is not None:
            return memo
        if self._subclasses is None:
            tables = self.tables
            if "bases" not in tables:
                tables["bases"], tables["children"] = class_tables(self.index)
            self._subclasses = tables["bases"]
            self._children = tables["children"]
        related = closure(cls, self._subclasses)  # bases, transitively
        down = closure(cls, self._children) | {cls}  # subclasses, transitively
        out = self._related_memo[cls] = related | down - {cls}
        return out

    def _module_assigns(self, module: str) -> dict[str, list[Cond]]:
        table = self._assigns.get(module)
        if table is None:
            table = {}
            mod = self.index.module(module)
            for a in getattr(mod.facts, "assigns", ()) if mod else ():
                table.setdefault(a.name, []).append(a.cond)
            self._assigns[module] = table
        return table


def _const(text: str) -> object:
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    try:
        return int(text)
    except ValueError:
        return UNKNOWN


def tree_reads(read: Iterable[Dependency]) -> set[Probe]:
    """The probes of what a :meth:`ModuleIndex.noting` frame noted: ``("r", module)``, the
    modules whose facts were read (directly, or through a re-export), and ``("S", read)``,
    each read of the tree's shape (a frame noting them)."""
    return {_tree_probe(d) for d in read if d[0] in _TREE_READS}


_TREE_READS = SHAPE_READS | {"module", "reexport"}


@lru_cache(maxsize=1 << 17)
def _tree_probe(read: Dependency) -> Probe:
    """The probe of a read of a module's facts or of the shape, one object per read: a fold
    record holds several per module, thousands of modules the same ones (``"in:sglang"``),
    and the scan keeps several records (tens of thousands of tuples each, made apart)."""
    return ("r", read[1]) if read[0] in ("module", "reexport") else ("S", shape_read(read))


