"""Extract stage, Python: the facts ``extract(path, data)`` returns for one file.

Frozen, serialisable values (they are cached by content hash): imports with their context,
top-level definitions, methods, references, strings that may name modules, package walks,
attribute assignments and produced strings, gathered in ``PythonFacts``. The resolve stage
and everything after it read these; nothing here parses.
"""

from __future__ import annotations

from dataclasses import dataclass

from analyzer.extract.fact import Fact, Packed
from analyzer.extract.python_branches import Branch, Cond, ModuleAssign
from analyzer.extract.python_literals import (
    CallFact,
    ChainComparison,
    ChainDisplay,
    Display,
    Literal,
)
from analyzer.extract.python_names import ParamGetattr, TypeTestAppend
from analyzer.model import ParseProblem

# Import contexts.
IN_FUNCTION = "function"
TYPE_CHECKING = "type_checking"
TRY_IMPORT_ERROR = "try_import_error"
CONDITIONAL = "conditional"


@dataclass(frozen=True, slots=True)
class ImportedName(Fact):
    """One name of a ``from m import name as alias`` (``name == "*"`` for a star import)."""

    name: str
    alias: str | None


@dataclass(frozen=True, slots=True)
class ImportFact(Fact):
    """One imported module of an import statement (``import a, b`` gives two facts)."""

    module: str  # dotted module as written, without leading dots ("" in `from . import x`)
    level: int  # leading dots of a relative import
    is_from: bool
    names: tuple[ImportedName, ...]  # from-imports only
    alias: str | None  # `import a.b as c` -> "c"
    start_line: int  # the whole statement, 1-based inclusive
    end_line: int
    scope: str
    context: tuple[str, ...]  # IN_FUNCTION / TYPE_CHECKING / TRY_IMPORT_ERROR / CONDITIONAL
    # Lines of the enclosing `if` when this import is the only statement of its body and the
    # `if` has no elif/else: deleting the import alone would leave an empty block.
    sole_in_if: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Decorator(Fact):
    name: str  # dotted callee, e.g. "register_attention_backend" or "CustomOp.register"
    is_call: bool
    string_args: tuple[str, ...]
    line: int


@dataclass(frozen=True, slots=True)
class Definition(Fact):
    """A top-level binding: function, class or assignment (incl. those under top-level if/try)."""

    name: str
    kind: str  # "function" | "class" | "assignment"
    start_line: int  # first decorator line for decorated definitions
    end_line: int
    decorators: tuple[Decorator, ...]
    nested: bool  # inside a top-level compound statement (if/try/with/...)
    bases: tuple[str, ...] = ()  # classes: the superclass expressions as written
    # classes: a superclass or class keyword that is not a plain name chain (``Generic[T]``,
    # ``metaclass=Meta``, a call): what it makes of the methods is unknown
    other_bases: bool = False
    body_size: int = 0  # classes: the statements directly in the body (docstring included)


@dataclass(frozen=True, slots=True)
class MethodDef(Fact):
    """A function directly in a top-level class body: a graph node of its own, so code only a
    dead method reaches is dead with it."""

    cls: str
    name: str
    start_line: int  # first decorator line for decorated methods
    end_line: int
    decorators: tuple[str, ...]  # decorator callees as written ("staticmethod", "x.setter")
    # a body that is one `return <expr>`: the expression as a condition (enum predicates:
    # `def is_ascend_fuseep(self): return self == MoeA2ABackend.ASCEND_FUSEEP`)
    returns: Cond | None = None


@dataclass(frozen=True, slots=True)
class MemberUse(Fact):
    """What may name a method: an attribute read (``x.name``), a bare name read in a class
    body, an identifier-like string literal (``getattr(x, "name")``), or the skeleton of a
    computed name in ``getattr``/``hasattr`` (``f"forward_{p}"`` gives ``forward_*``). ``*``
    alone: the scope enumerates attributes (``dir``, ``vars``, ``__dict__``, ``getmembers``)."""

    name: str
    scope: str
    lines: tuple[int, ...]  # every line of the scope (method, or top-level scope) reading it


@dataclass(frozen=True, slots=True)
class Reference(Fact):
    """A dotted name chain read in a scope (``a.b.c`` from ``a.b.c(x)``)."""

    chain: str
    scope: str
    line: int
    # later lines of the same method (or top-level scope) reading the chain: when ``line``
    # lies in folded-away code, the first of these that does not still reads it
    also: tuple[int, ...] = ()
    # lines where the chain's object itself is handed on as a value (in a list, an argument,
    # an assignment) rather than tested (``if ops is not None``, ``if mod:``, ``not mod``):
    # a module used so may have any attribute read from it
    value_lines: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class StringRef(Fact):
    """A string literal that may spell a module or symbol, or a dynamic import of one."""

    value: str
    kind: str  # "dotted" | "import_module" | "path" (a relative path to a .py file)
    scope: str
    line: int
    call: str | None = None  # dotted callee when the string is a positional call argument
    # a path string inside an element of a collection literal (the string itself, a call
    # holding it such as ``TestFile("cpu/test_x.py", 30)``, or a dict item): the element's
    # first line and its name as ``remove_list_element`` matches it (a string element or
    # dict key: its value; anything else: its code as written); None elsewhere
    element: tuple[int, str] | None = None


@dataclass(frozen=True, slots=True)
class PackageWalk(Fact):
    """A call that lists modules or folders, or imports a computed name: the signs of a module
    that loads packages dynamically."""

    kind: str  # "iter_modules" | "walk_packages" | "listdir" | "dynamic_import" (non-literal)
    scope: str
    line: int
    # dynamic_import: the dotted text the computed name starts with
    # (``import_module(f"pkg.backends.{name}")``: "pkg.backends.")
    prefix: str | None = None

    @property
    def prefix_package(self) -> str | None:
        """The package every module the computed name may be lies under ("pkg.backends" for
        both "pkg.backends." and "pkg.backends.c_"), or None without a prefix."""
        if self.prefix is None:
            return None
        return self.prefix[:-1] if self.prefix.endswith(".") else self.prefix.rpartition(".")[0]


_NO_BRANCHES: Packed[Branch] = Packed()
_NO_MEMBER_USES: Packed[MemberUse] = Packed()


@dataclass(frozen=True, slots=True)
class PythonFacts(Fact):
    path: str
    line_count: int
    imports: tuple[ImportFact, ...]
    definitions: tuple[Definition, ...]
    references: tuple[Reference, ...]
    all_names: tuple[str, ...] | None
    strings: tuple[StringRef, ...]
    package_walks: tuple[PackageWalk, ...]
    problems: tuple[ParseProblem, ...]
    main_guard_line: int | None = None  # `if __name__ == "__main__":` at module level
    # read only to fold guards (and the folds are cached): kept pickled until then
    branches: Packed[Branch] = _NO_BRANCHES
    assigns: tuple[ModuleAssign, ...] = ()
    literals: tuple[Literal, ...] = ()
    calls: tuple[CallFact, ...] = ()
    produced: tuple[ProducedString, ...] = ()
    methods: tuple[str, ...] = ()  # functions defined directly in top-level class bodies
    attr_assigns: tuple[AttrAssign, ...] = ()
    method_defs: tuple[MethodDef, ...] = ()
    # read whole only where a name it holds matters (a module's edges, a lost method):
    # kept pickled, the names alone loaded (``member_names``)
    member_uses: Packed[MemberUse] = _NO_MEMBER_USES
    member_names: frozenset[str] = frozenset()  # the names of ``member_uses``
    displays: tuple[Display, ...] = ()
    chain_displays: tuple[ChainDisplay, ...] = ()
    chain_comparisons: tuple[ChainComparison, ...] = ()
    # getattr(obj, p) with p a parameter: what it reads is what the callers pass
    param_getattrs: tuple[ParamGetattr, ...] = ()
    # `types.append(C)` to a list only type tests read: no edge while C is constructible
    type_test_appends: tuple[TypeTestAppend, ...] = ()
    # what the analysis reads of the file, as one digest (the early cut-off's key;
    # ``analyzer.extract.python_digest``); "" where the bytes' hash stands
    analysis_digest: str = ""


@dataclass(frozen=True, slots=True)
class AttrAssign(Fact):
    """An assignment to an attribute (``self.use_nsa = is_deepseek_nsa(config)``,
    ``args.device = "npu"``) or to a name in a class body (``use_nsa = False``): what may set
    an instance attribute. ``cond`` is the value as a condition tree when the statement
    assigns it alone (``unknown`` for augmented, tuple or chained assignments)."""

    scope: str  # the top-level definition it is in ("" for the module body)
    target: str  # the assigned chain as written: "self.use_nsa", or "use_nsa" in a class body
    attr: str  # its last name
    cond: Cond
    line: int


@dataclass(frozen=True, slots=True)
class ProducedString(Fact):
    """A short string literal that code hands on as a value: assigned (``self.backend =
    "fa3"``), a parameter default, a keyword argument or a return value, possibly through a
    conditional expression or a tuple. A registry key produced by live code may be selected
    at run time."""

    value: str
    target: str  # what receives it: the assigned name or chain, parameter, keyword; "" returns
    kind: str  # "assign" | "default" | "keyword" | "return"
    scope: str
    line: int
    # the value is one arm of a conditional expression: its start byte and which arm
    # (0: the `x if ...` arm, 2: the `else x` arm), so that arm alone can be folded away
    arm_of: int = -1
    arm: int = -1
    # a decimal integer literal (``fa_version = 3``), ``value`` its text: integers are keys
    # only of integer-valued registries, and count only where they reach a domain's name
    integer: bool = False


