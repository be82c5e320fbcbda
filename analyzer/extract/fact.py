"""Extract stage: the base of the fact values extraction produces (imports, references,
branches, CMake commands, ops...). Millions of them live through a scan and every one is
pickled into the facts cache, so each is a slotted frozen dataclass (no ``__dict__`` per
value) that pickles as its class's constructor and its field values. The constructor
(``FactClass._rebuild``) makes the instance and sets each slot through its descriptor: a call
with every value at once, unlike pickle's restoring of slots one by one, and without the
frozen ``__init__``'s ``object.__setattr__`` per field (a fifth less time loading the facts
of a tree). Its string fields are interned: a name a file spells many times (``torch``,
``self``, a module's path) is one string in the file's pickle, and one object once loaded,
not one per fact (a sixth less memory for the facts of a tree); its tuples and fact fields
go through :func:`analyzer.util.pickling.equal_values`, so equal ones of one file (line
tuples, condition trees) are one object too."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import attrgetter
from sys import intern
from types import MemberDescriptorType
from typing import Any, ClassVar, Generic, TypeVar, overload

from analyzer.util import pickling
from analyzer.util.pickling import equal_values

_T = TypeVar("_T")

_INIT_FIELDS: dict[type, tuple[str, ...]] = {}


def _init_fields(cls: type) -> tuple[str, ...]:
    """The names of a fact class's ``__init__`` arguments, in their order."""
    names = _INIT_FIELDS.get(cls)
    if names is None:
        names = _INIT_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)
                                          if f.init)
    return names


class _Rebuild:
    """``FactClass._rebuild``: a function of the class's ``__init__`` arguments making the
    same fact as ``__init__`` does -- a new instance whose slots are set one by one through
    their descriptors, without the frozen ``__init__``'s ``object.__setattr__`` per field.
    Made once per class, when first asked for (pickling a fact, or loading one: pickle
    finds it as ``module.FactClass._rebuild``). A class whose fields are not all its
    ``__init__``'s, or not all slots, or that has a ``__post_init__``, is rebuilt by calling
    it."""

    def __init__(self) -> None:
        self._made: dict[type, Any] = {}

    def __get__(self, obj: object, cls: type) -> Any:
        made = self._made.get(cls)
        if made is None:
            made = self._made[cls] = _rebuilder(cls)
        return made


def _rebuilder(cls: type) -> Any:
    names = _init_fields(cls)
    every = [f.name for f in dataclasses.fields(cls)]
    setters = [s for n in names if type(s := getattr(cls, n, None)) is MemberDescriptorType]
    if list(names) != every or len(setters) != len(names) or hasattr(cls, "__post_init__"):
        return cls
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls}
    scope.update((f"set{i}", s.__set__) for i, s in enumerate(setters))
    args = ", ".join(f"a{i}" for i in range(len(names)))
    sets = "".join(f"    set{i}(o, a{i})\n" for i in range(len(names)))
    exec(f"def _rebuild({args}):\n    o = new(cls)\n{sets}    return o\n", scope)
    made = scope["_rebuild"]
    made.__module__ = cls.__module__
    made.__qualname__ = f"{cls.__qualname__}._rebuild"
    return made


class Fact:
    """Mixin of the ``@dataclass(frozen=True, slots=True)`` fact classes."""

    __slots__ = ()
    # equal values of the class are interchangeable: every field a string, or a tuple of
    # strings or such facts (``True == 1``, so a fact holding a bool, an int or a float
    # could equal one of another meaning)
    exact_equality: ClassVar[bool] = False
    # the class's constructor for loading (see :class:`_Rebuild`)
    _rebuild: ClassVar[Any] = _Rebuild()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        cls = type(self)
        known = _REDUCED.get(cls)  # (one lookup per fact: millions are pickled)
        if known is None:
            known = _REDUCED[cls] = (cls._rebuild, _fields_of(_init_fields(cls)))
        rebuild, fields = known
        table = equal_values()
        out: list[Any] = []
        for v in fields(self):
            kind = type(v)
            if kind is str:
                v = intern(v)
            elif table is not None and (
                    (kind is tuple and v and (_ATOMS.issuperset(map(type, v)) or _exact(v)))
                    or (kind is not tuple and _exact(v))):
                try:  # (not contextlib.suppress: a context per value costs)  # noqa: SIM105
                    v = table.setdefault(v, v)
                except TypeError:  # (a part holding a list or a dict)
                    pass
            out.append(v)
        return rebuild, tuple(out)


# fact class -> (its constructor for loading, the getter of its __init__ fields' values, in
# order, as a tuple): what pickling one needs
_REDUCED: dict[type, tuple[Any, Callable[[object], tuple[Any, ...]]]] = {}

# the types whose values are exact whatever they hold (see :func:`_exact`)
_ATOMS = frozenset({int, str})


def _fields_of(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """A function giving an object's attributes ``names`` as a tuple (one C call)."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    if not names:
        return lambda obj: ()
    return attrgetter(*names)


def _exact(value: object) -> bool:
    """Equal values are the same value (what a dump's equal-value table may merge): a fact of an
    ``exact_equality`` class, or a non-empty tuple of integers (not bools), strings and
    such facts -- a line tuple, a tuple of names or of condition trees."""
    if type(value) is tuple:
        return bool(value) and all(type(x) is int or type(x) is str
                                   or getattr(x, "exact_equality", False) for x in value)
    return getattr(value, "exact_equality", False) is True


class Packed(Sequence[_T], Generic[_T]):
    """A tuple of facts kept pickled until it is read: for a field that most scans never
    read, and that would cost the most to hold and to load. A file's ``branches`` (its
    ``if`` statements' condition trees) are read only to fold guards, and the folds are
    cached per tree: a scan that finds them in the cache reads the branches of a handful of
    files. On the largest tree they are 46 MiB held as objects and a third of the time
    the facts cache takes to load; held packed, 12 MB.

    Each read unpickles the tuple again (nothing is kept): a reader that goes over it more
    than once takes :meth:`unpack` once. Two packs are equal when their bytes are: the same
    facts pickle to the same bytes (:func:`analyzer.util.pickling.dumps`)."""

    __slots__ = ("data", "size")

    def __init__(self, items: Iterable[_T] = ()) -> None:
        values = tuple(items)
        self.data = pickling.dumps(values) if values else b""
        self.size = len(values)  # (``len`` unpacks nothing: ``tuple(pack)`` unpacks once)

    @classmethod
    def _of_bytes(cls, data: bytes, size: int) -> Packed[Any]:
        packed: Packed[Any] = cls.__new__(cls)
        packed.data, packed.size = data, size
        return packed

    def __reduce__(self) -> tuple[Any, tuple[bytes, int]]:
        return Packed._of_bytes, (self.data, self.size)

    def unpack(self) -> tuple[_T, ...]:
        """The facts (a new tuple each call; strings and integers the process's shared ones)."""
        if not self.data:
            return ()
        values: tuple[_T, ...] = pickling.loads(self.data)  # type: ignore[assignment]
        return values

    def __iter__(self) -> Iterator[_T]:
        return iter(self.unpack())

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, i: int) -> _T: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[_T]: ...
    def __getitem__(self, i: int | slice) -> _T | Sequence[_T]:
        return self.unpack()[i]

    def __bool__(self) -> bool:
        return bool(self.data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Packed) and other.data == self.data

    def __hash__(self) -> int:
        return hash(self.data)

    def __repr__(self) -> str:
        return f"Packed({self.unpack()!r})"
