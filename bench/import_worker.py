"""The subprocess side of ``bench/import_check.py``: import modules of a tree under stubs.

Run only by ``import_check.py`` as ``python -I -S -X pycache_prefix=DIR import_worker.py
SPEC.json`` (isolated: no site-packages, no script folder; bytecode goes to DIR, never into the
tree). Standard library only.
Everything here exists to *import* scanned code, so it lives in ``bench/`` and the ``analyzer``
package never imports it.

``SPEC.json``: ``roots`` (absolute folders put in front of ``sys.path``), ``tree_names``
(top-level names the tree provides), ``no_stub`` (dotted names never stubbed even when missing:
the modules and packages of the original tree), ``modules`` (imported in this order),
``timeout`` (seconds per module), ``results`` (a file receiving one JSON object per line:
``{"start": m}`` before a module, ``{"mod": m, "ok": ...}`` after it, ``{"done": ...}`` at the
end; written unbuffered, so a worker that dies leaves a trail).

Stubs: a ``sys.meta_path`` finder placed first answers every top-level name that is neither the
tree's nor the standard library's with a permissive stub package (``torch``, ``triton``,
``numpy``, ``packaging``, ...). A second finder placed last stubs a missing submodule of an
in-tree package (a compiled extension such as ``sgl_kernel.common_ops`` or ``vllm._C``) unless
the original tree has that module or package (``no_stub``): a module the pruning deleted must
fail. Attributes of stubs are classes built by :class:`_StubMeta`, so they can be called
(a decorator gives back what it decorates), subscripted, iterated (empty; ``a, b = stub``
unpacks into stubs), compared (a stub ranks above any other value), combined with ``|`` and
arithmetic, used as context managers and paths, and subclassed, alone or next to ``Enum``,
``ABC``, ``Generic`` or other stubs: ``builtins.__build_class__`` merges the metaclasses when a
stub base meets another metaclass. :data:`MACHINE` gives the few names with a real value (the
platform: CUDA, no ROCm/NPU/...; ``packaging.version``; ``pydantic.dataclasses.dataclass``).

Side effects of imported code are contained: stdout/stderr (file descriptors 1 and 2) go to
/dev/null, the working folder, ``HOME`` and ``TMPDIR`` are a temp folder, starting processes
raises ``FileNotFoundError`` (``subprocess``, ``os.system``, ``os.exec*``, ``os.fork``), and
``importlib.metadata.version`` answers ``99.0.0`` for any distribution.
"""

from __future__ import annotations

import asyncio
import builtins
import dis
import functools
import importlib
import importlib.abc
import importlib.machinery
import json
import linecache
import os
import signal
import sys
import time
import traceback
import types
from itertools import dropwhile
from typing import ClassVar

STUB_VERSION = "99.0.0"
STUB_ROOT = "/nonexistent-import-check-stubs"

_REGISTRY: dict[str, type] = {}
_STUBBED_MISSING: list[str] = []


def _special(name: str) -> bool:
    """Dunder and sunder names: never invented (inspect, enum, copy, ABC probe them)."""
    return name.startswith("_") and name.endswith("_") and len(name) > 1


def _false(*args, **kwargs):
    return False


def _true(*args, **kwargs):
    return True


ABSENT = object()  # a MACHINE value: the attribute does not exist (hasattr() is False)

# The machine the stubs describe, so that import-time platform probes take one consistent path:
# NVIDIA CUDA 12.8, compute capability 9.0; no ROCm, XPU, NPU, HPU, MPS, MUSA, MLU, TPU (torch
# has no ``npu``/``hpu``/``musa``/``mlu`` attribute and their plugins, ``libtpu`` too, do not
# import).
MACHINE: dict[str, object] = {
    "torch.version.hip": None,
    "torch.version.cuda": "12.8",
    "torch.cuda.is_available": _true,
    "torch.cuda.get_device_capability": lambda *args, **kwargs: (9, 0),
    "torch.backends.mps.is_available": _false,
    **{f"torch.{device}": ABSENT for device in ("npu", "hpu", "musa", "mlu")},
    **{plugin: ABSENT for plugin in ("torch_npu", "torch_musa", "torch_mlu",
                                     "habana_frameworks", "libtpu")},
    **{f"torch.{device}.is_available": _false
       for device in ("xpu", "npu", "hpu", "mps", "musa", "mlu")},
}


def stub(name: str) -> object:
    """The one stub class for a dotted ``name`` (``torch.nn.Module``); a :data:`MACHINE` value
    for the few names that describe the platform."""
    if name in MACHINE:
        if MACHINE[name] is ABSENT:
            raise AttributeError(name.rpartition(".")[2])
        return MACHINE[name]
    found = _REGISTRY.get(name)
    if found is None:
        short = name.rpartition(".")[2] or name
        module = name.rpartition(".")[0] or name
        # a name spelled like an exception class is one: `except hub.EntryNotFoundError:`
        # must evaluate when something is raised
        bases = ((_StubBase, Exception) if short.endswith(("Error", "Exception", "Warning"))
                 else (_StubBase,))
        found = _StubMeta(short, bases, {
            "_stub_pure": True, "__module__": module, "__qualname__": short,
            "__doc__": None, "_stub_name": name,
        })
        _REGISTRY[name] = found
    return found


def _child(obj: object, suffix: str) -> type:
    return stub(f"{getattr(obj, '_stub_name', type(obj).__name__)}{suffix}")


def _is_pure(cls: type) -> bool:
    return "_stub_pure" in cls.__dict__


def _decorating(depth: int) -> bool:
    """Is the call ``depth`` frames up a decorator application (its line starts with ``@``)?"""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return False
    return linecache.getline(frame.f_code.co_filename, frame.f_lineno).lstrip().startswith("@")


def _call(obj: object, args: tuple, kwargs: dict) -> object:
    """Calling a stub. A decorator keeps what it decorates: ``@torch.compile``, ``@triton.jit``,
    ``@torch.library.custom_op("ns::op", mutates_args=())`` give back the class, or the function
    (wrapped, so that ``@op.register_fake`` and ``kernel.run`` find stub attributes). Any other
    call returns a stub (``dill.dumps(cls).hex()`` must not reach the real class)."""
    if len(args) == 1 and not kwargs and callable(args[0]) and _decorating(3):
        target = args[0]
        if isinstance(target, types.FunctionType):
            return StubFunction(target)
        return target
    return _child(obj, "()")


def _unpack_count() -> int | None:
    """When ``iter()`` is called by ``a, b = stub`` (``UNPACK_SEQUENCE``/``UNPACK_EX``), the
    number of values the statement needs; ``None`` for any other iteration (which is empty)."""
    try:
        frame = sys._getframe(3)
    except ValueError:
        return None
    code = frame.f_code.co_code
    i = frame.f_lasti
    if not 0 <= i < len(code) - 1:
        return None
    op, arg = code[i], code[i + 1]
    if op == _UNPACK_SEQUENCE:
        return arg
    if op == _UNPACK_EX:
        return (arg & 0xFF) + (arg >> 8)
    return None


_UNPACK_SEQUENCE = dis.opmap["UNPACK_SEQUENCE"]
_UNPACK_EX = dis.opmap["UNPACK_EX"]


def _iterate(obj: object):
    count = _unpack_count()
    if count is None:
        return iter(())
    return iter([_child(obj, f"[{i}]") for i in range(count)])


class StubFunction:
    """A decorated function: calls, binding as a method, ``__name__``, ``__doc__`` and
    ``__wrapped__`` are the function's; any other attribute is a stub."""

    def __init__(self, func):
        functools.update_wrapper(self, func)
        self._stub_name = f"{func.__module__}.{func.__qualname__}"

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)

    def __get__(self, obj, objtype=None):
        return self if obj is None else types.MethodType(self, obj)

    def __getattr__(self, name):
        if _special(name):
            raise AttributeError(name)
        return stub(f"{self._stub_name}.{name}")

    def __getitem__(self, item):  # kernel[grid](...)
        return _child(self, "[]")


class _StubMeta(type):
    """Metaclass of every stub: the class objects themselves are the permissive stubs."""

    def __new__(mcs, name, bases, namespace, **kwargs):
        return super().__new__(mcs, name, bases, namespace, **kwargs)

    def __init__(cls, name, bases, namespace, **kwargs):
        super().__init__(name, bases, namespace)

    def __getattr__(cls, name):
        if _special(name):
            raise AttributeError(name)
        owner = cls._stub_name if _is_pure(cls) else f"{cls.__module__}.{cls.__qualname__}"
        return stub(f"{owner}.{name}")

    def __call__(cls, *args, **kwargs):
        if _is_pure(cls):
            return _call(cls, args, kwargs)
        return super().__call__(*args, **kwargs)

    def __getitem__(cls, item):
        if not _is_pure(cls):
            getter = getattr(cls, "__class_getitem__", None)  # Generic subclasses
            if getter is not None:
                return getter(item)
        return cls

    def __setitem__(cls, key, value):
        pass

    def __delitem__(cls, key):
        pass

    def __iter__(cls):
        return _iterate(cls)

    def __reversed__(cls):
        return iter(())

    def __next__(cls):
        raise StopIteration

    def __len__(cls):
        return 0

    def __bool__(cls):
        return True

    def __contains__(cls, item):
        return False

    def __instancecheck__(cls, obj):  # any stub value is an instance of any stub type
        if _is_pure(cls) and isinstance(obj, _STUBBY):
            return True
        return type.__instancecheck__(cls, obj)

    def __int__(cls):
        return 1

    __index__ = __int__

    def __float__(cls):
        return 1.0

    def __complex__(cls):
        return 1j

    def __round__(cls, ndigits=None):
        return 1

    __trunc__ = __floor__ = __ceil__ = __round__

    # ordering: a stub is above every value that is not a stub (the newest version, the
    # biggest GPU: ``torch_release >= (2, 4)``); two different stubs are unordered
    def __eq__(cls, other):
        return cls is other

    def __ne__(cls, other):
        return cls is not other

    def __lt__(cls, other):
        return False

    def __gt__(cls, other):
        return not isinstance(other, _STUBBY)

    def __le__(cls, other):
        return cls is other

    def __ge__(cls, other):
        return cls is other or not isinstance(other, _STUBBY)

    __hash__ = type.__hash__

    def __enter__(cls):
        return cls

    def __exit__(cls, *exc):
        return False

    async def __aenter__(cls):
        return cls

    async def __aexit__(cls, *exc):
        return False

    def __repr__(cls):
        return f"<stub {cls._stub_name}>" if _is_pure(cls) else type.__repr__(cls)

    def __format__(cls, spec):
        return repr(cls)

    def __fspath__(cls):  # os.path.join(triton_stub.something, "x")
        return f"{STUB_ROOT}/{cls._stub_name.replace('.', '/')}"

    def _arith(cls, *other):
        return _child(cls, "<op>")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _arith
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __divmod__ = __rdivmod__ = _arith
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _arith
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _arith
    __neg__ = __pos__ = __abs__ = __invert__ = _arith


class _StubBase(metaclass=_StubMeta):
    """Base of every stub class: instances of subclasses (``class M(torch.nn.Module)``, then
    ``M()``) are permissive too."""

    _stub_name = "stub"
    __version__ = STUB_VERSION

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__()

    def __getattr__(self, name):
        if _special(name):
            raise AttributeError(name)
        return stub(f"{type(self).__qualname__}().{name}")

    def __call__(self, *args, **kwargs):
        return _call(self, args, kwargs)

    def __getitem__(self, item):
        return _child(self, "[]")

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        return _iterate(self)

    def __len__(self):
        return 0

    def __bool__(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def _arith(self, *other):
        return _child(self, "<op>")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _arith
    __matmul__ = __rmatmul__ = __neg__ = _arith


class StubModule(types.ModuleType):
    """A stubbed package: every attribute is a stub class, submodules import as stubs."""

    def __getattr__(self, name):
        if _special(name):
            raise AttributeError(name)
        return stub(f"{self.__name__}.{name}")

    def __call__(self, *args, **kwargs):  # import guidance; @guidance
        return _call(self, args, kwargs)


class Version:
    """``packaging.version.Version``/``parse`` under the stubs: release tuple and pre/dev/post
    stage compared for real (import-time branches on versions are common); a stub or a text
    without a version gives ``99.0.0``, like ``__version__`` of every stub."""

    _STAGES: ClassVar[dict[str, int]] = {
        "dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "c": 3, "rc": 3, "pre": 3, "preview": 3,
        "": 4, "post": 5, "r": 5, "rev": 5,
    }

    def __init__(self, text: object = STUB_VERSION) -> None:
        import re

        text = text if isinstance(text, str) else STUB_VERSION
        self._text = text.strip()
        public, _, self.local = self._text.lstrip("vV").partition("+")
        found = re.match(r"(\d+(?:\.\d+)*)[-_.]?([a-z]*)[-_.]?(\d*)", public.lower())
        if found is None:
            found = re.match(r"(\d+(?:\.\d+)*)()()", STUB_VERSION)
        self.release = tuple(int(p) for p in found.group(1).split("."))
        stage = found.group(2) if found.group(2) in self._STAGES else ""
        number = int(found.group(3) or 0)
        self._key = (tuple(reversed(tuple(
            dropwhile(lambda n: n == 0, reversed(self.release))))),
            self._STAGES[stage], number)
        self.pre = (stage, number) if self._STAGES[stage] in (1, 2, 3) else None
        self.post = number if self._STAGES[stage] == 5 else None
        self.dev = number if stage == "dev" else None
        self.is_prerelease = self.pre is not None or self.dev is not None
        self.is_devrelease = self.dev is not None
        self.is_postrelease = self.post is not None
        self.public = public
        self.base_version = ".".join(map(str, self.release))
        self.epoch = 0
        padded = (*self.release, 0, 0, 0)
        self.major, self.minor, self.micro = padded[:3]

    def __repr__(self) -> str:
        return f"<Version({self._text!r})>"

    def __str__(self) -> str:
        return self._text

    def __hash__(self) -> int:
        return hash(self._key)

    def _cmp(self, other: object) -> tuple | None:
        if isinstance(other, Version):
            return other._key
        if isinstance(other, str):
            return Version(other)._key
        return None

    def __eq__(self, other):
        key = self._cmp(other)
        return NotImplemented if key is None else self._key == key

    def __lt__(self, other):
        key = self._cmp(other)
        return NotImplemented if key is None else self._key < key

    def __le__(self, other):
        key = self._cmp(other)
        return NotImplemented if key is None else self._key <= key

    def __gt__(self, other):
        key = self._cmp(other)
        return NotImplemented if key is None else self._key > key

    def __ge__(self, other):
        key = self._cmp(other)
        return NotImplemented if key is None else self._key >= key


class InvalidVersion(ValueError):
    pass


def _pydantic_dataclass(cls=None, /, **kwargs):
    """``pydantic.dataclasses.dataclass`` as the standard library's (``config=`` and other
    pydantic options dropped): vLLM's configs are pydantic dataclasses, and code reads their
    fields at import time."""
    import dataclasses
    import inspect

    known = set(inspect.signature(dataclasses.dataclass).parameters)
    options = {k: v for k, v in kwargs.items() if k in known}
    if cls is None:
        return lambda c: dataclasses.dataclass(c, **options)
    return dataclasses.dataclass(cls, **options)


class _MsgspecStruct:
    """``msgspec.Struct`` as a standard dataclass: a subclass's annotated fields become
    ``__init__`` parameters and its instances compare by value (SGLang's kernel registry
    rejects two registrations of one op unless their specs are equal)."""

    def __init_subclass__(cls, **options):
        import dataclasses

        super().__init_subclass__()
        fields = {name for name, note in vars(cls).get("__annotations__", {}).items()
                  if "ClassVar" not in str(note)}
        for name, value in list(vars(cls).items()):
            if name not in fields:
                continue
            if isinstance(value, _MsgspecField):
                setattr(cls, name, value.as_dataclass_field())
            elif isinstance(value, list | dict | set | bytearray):  # msgspec copies these
                setattr(cls, name, dataclasses.field(
                    default_factory=lambda v=value: type(v)(v)))
        dataclasses.dataclass(cls, frozen=bool(options.get("frozen")),
                              kw_only=bool(options.get("kw_only")), eq=True)
        cls.__struct_fields__ = tuple(f.name for f in dataclasses.fields(cls))


class _MsgspecField:
    def __init__(self, *, default=None, default_factory=None, name=None):
        self.default, self.default_factory = default, default_factory

    def as_dataclass_field(self):
        import dataclasses

        if self.default_factory is not None:
            return dataclasses.field(default_factory=self.default_factory)
        return dataclasses.field(default=self.default)


# stubbed packages that are backports: their names are the standard library's where it has them
_BACKPORTS = {"typing_extensions": "typing"}

# stubbed names with a real value: what the standard library insists on (an event loop policy
# must be one), and version parsing
MACHINE.update({
    "packaging.version.Version": Version,
    "packaging.version.parse": Version,
    "packaging.version.InvalidVersion": InvalidVersion,
    "uvloop.EventLoopPolicy": asyncio.DefaultEventLoopPolicy,
    "uvloop.new_event_loop": asyncio.new_event_loop,
    "uvloop.install": lambda: None,
    "pydantic.dataclasses.dataclass": _pydantic_dataclass,
    "msgspec.Struct": _MsgspecStruct,
    "msgspec.field": _MsgspecField,
})


def _type_params() -> dict[str, object]:
    """``typing_extensions.TypeVar``/``ParamSpec``/``TypeVarTuple`` take arguments that this
    Python's ``typing`` may not know yet (PEP 696 ``default=``, ``infer_variance=``)."""
    import typing

    def factory(real):
        def make(name, *constraints, default=None, infer_variance=False, **kwargs):
            return real(name, *constraints, **kwargs)
        make.__name__ = real.__name__
        return make

    names = ("TypeVar", "ParamSpec", "TypeVarTuple")
    return {n: factory(getattr(typing, n)) for n in names if _real_hasattr(typing, n)}


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        module = StubModule(spec.name)
        if spec.name in _BACKPORTS:
            real = importlib.import_module(_BACKPORTS[spec.name])
            module.__dict__.update({k: v for k, v in vars(real).items() if not _special(k)})
            if spec.name == "typing_extensions":
                module.__dict__.update(_type_params())
        module.__version__ = STUB_VERSION
        module.__all__ = []
        return module

    def exec_module(self, module):
        pass


_LOADER = _StubLoader()


def _stub_spec(fullname: str) -> importlib.machinery.ModuleSpec:
    spec = importlib.machinery.ModuleSpec(
        fullname, _LOADER, origin=f"{STUB_ROOT}/{fullname.replace('.', '/')}/__init__.py",
        is_package=True)
    spec.has_location = True
    return spec


class ThirdPartyFinder(importlib.abc.MetaPathFinder):
    """First in ``sys.meta_path``: anything neither in the tree nor in the stdlib is a stub.

    The tree's top-level namespace packages (folders without ``__init__.py``) are answered here
    too, so that a regular package of the same name outside the tree (the standard library's
    ``test``) cannot shadow them: the tree is in front of ``sys.path``.
    """

    def __init__(self, tree_names: set[str], namespaces: dict[str, list[str]]) -> None:
        self.tree_names = tree_names
        self.namespaces = namespaces
        self.stdlib = set(sys.stdlib_module_names)

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in self.tree_names:
            if fullname in self.namespaces:
                spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
                spec.submodule_search_locations = list(self.namespaces[fullname])
                return spec
            return None
        if top in self.stdlib or MACHINE.get(fullname) is ABSENT:
            return None
        return _stub_spec(fullname)


class MissingInTreeFinder(importlib.abc.MetaPathFinder):
    """Last in ``sys.meta_path``: a missing submodule of an in-tree package that the original
    tree never had as source (a compiled extension) is a stub."""

    def __init__(self, tree_names: set[str], no_stub: set[str]) -> None:
        self.tree_names = tree_names
        self.no_stub = no_stub

    def find_spec(self, fullname, path=None, target=None):
        if "." not in fullname or fullname.partition(".")[0] not in self.tree_names:
            return None
        if fullname in self.no_stub:
            return None
        _STUBBED_MISSING.append(fullname)
        return _stub_spec(fullname)


# ---- metaclass merging for class statements with stub bases ----------------------------------

_MERGED: dict[tuple[type, type], type] = {}
_original_build_class = builtins.__build_class__


def _merge(a: type, b: type) -> type:
    key = (a, b)
    if key not in _MERGED:
        first, second = (b, a) if issubclass(a, _StubMeta) else (a, b)
        _MERGED[key] = type(f"{first.__name__}+{second.__name__}", (first, second), {})
    return _MERGED[key]


def _winner(metas: list[type]) -> type:
    winner = metas[0]
    for meta in metas[1:]:
        if issubclass(winner, meta):
            continue
        if issubclass(meta, winner):
            winner = meta
            continue
        winner = _merge(winner, meta)
    return winner


def _build_class(func, name, *bases, **kwds):
    meta = kwds.get("metaclass")
    if isinstance(meta, _StubMeta):  # a stub used as metaclass: ignore it
        kwds.pop("metaclass")
        meta = None
    if any(isinstance(b, _StubMeta) for b in bases) and (meta is None or isinstance(meta, type)):
        try:
            resolved = types.resolve_bases(bases)
            metas = ([meta] if meta is not None else []) + [type(b) for b in resolved]
            kwds["metaclass"] = _winner(metas)
        except TypeError:
            pass  # layouts that cannot merge: let the class statement report its own error
    return _original_build_class(func, name, *bases, **kwds)


# ---- builtins that insist on a str name: getattr(torch, stub_device) -----------------------

_real_getattr, _real_hasattr = builtins.getattr, builtins.hasattr
_real_setattr, _real_delattr = builtins.setattr, builtins.delattr
_STUBBY = (_StubMeta, _StubBase, StubModule, StubFunction)


def _getattr(obj, name, *default):
    if isinstance(name, _STUBBY):
        if isinstance(obj, _STUBBY):
            return _child(obj, ".<dynamic>")
        if default:
            return default[0]
        raise AttributeError(f"{type(obj).__name__!r} object has no attribute {name!r}")
    return _real_getattr(obj, name, *default)


def _hasattr(obj, name):
    if isinstance(name, _STUBBY):
        return isinstance(obj, _STUBBY)
    return _real_hasattr(obj, name)


def _setattr(obj, name, value):
    if isinstance(name, _STUBBY):
        return None
    return _real_setattr(obj, name, value)


def _delattr(obj, name):
    if isinstance(name, _STUBBY):
        return None
    return _real_delattr(obj, name)


def _install_builtins() -> None:
    builtins.__build_class__ = _build_class
    builtins.getattr, builtins.hasattr = _getattr, _hasattr
    builtins.setattr, builtins.delattr = _setattr, _delattr


# ---- containment ----------------------------------------------------------------------------


class _Timeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _Timeout("import took longer than the per-module timeout")


def _no_process(*args, **kwargs):
    raise FileNotFoundError(2, "starting processes is disabled by import_check")


def _contain(tmp: str) -> None:
    import importlib.metadata
    import subprocess

    subprocess.Popen.__init__ = lambda self, *a, **k: _no_process()  # type: ignore[method-assign]
    subprocess.Popen.__del__ = lambda self: None  # type: ignore[method-assign]
    os.system = lambda command: 127
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "execv", "execve", "execl",
                 "execle", "execlp", "execlpe", "execvp", "execvpe", "spawnv", "spawnve",
                 "spawnl", "spawnle", "popen"):
        if hasattr(os, name):
            setattr(os, name, _no_process)
    importlib.metadata.version = lambda distribution_name: STUB_VERSION
    encode_default = json.JSONEncoder.default

    def default(self, o):  # json.dumps({"x": stub})
        return repr(o) if isinstance(o, _STUBBY) else encode_default(self, o)

    json.JSONEncoder.default = default
    for key in ("HOME", "TMPDIR", "XDG_CACHE_HOME"):
        os.environ[key] = tmp


def _where(tb: types.TracebackType | None, roots: list[str]) -> str:
    """``file:line`` of the innermost frame inside the tree."""
    best = ""
    for frame, line in traceback.walk_tb(tb):
        filename = frame.f_code.co_filename
        if any(filename.startswith(r + os.sep) for r in roots):
            best = f"{filename}:{line}"
    return best


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as fh:
        spec = json.load(fh)
    out_fd = os.open(spec["results"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def emit(obj: dict) -> None:
        os.write(out_fd, (json.dumps(obj) + "\n").encode())

    roots: list[str] = spec["roots"]
    tree_names = set(spec["tree_names"])
    namespaces = {k: v for k, v in spec.get("namespaces", {}).items()}
    timeout = float(spec["timeout"])
    tmp = spec["cwd"]

    devnull = os.open(os.devnull, os.O_RDWR)
    if not spec.get("verbose"):
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    os.dup2(devnull, 0)
    os.chdir(tmp)
    _contain(tmp)
    sys.path[:0] = roots
    sys.meta_path.insert(0, ThirdPartyFinder(tree_names, namespaces))
    if spec.get("stub_missing", True):
        sys.meta_path.append(MissingInTreeFinder(tree_names, set(spec["no_stub"])))
    _install_builtins()
    saved_path = list(sys.path)
    saved_meta = list(sys.meta_path)
    stdout, stderr = sys.stdout, sys.stderr

    for module in spec["modules"]:
        emit({"start": module})
        os.chdir(tmp)
        sys.path[:] = saved_path
        sys.meta_path[:] = saved_meta
        sys.stdout, sys.stderr = stdout, stderr
        sys.argv[:] = ["import_check"]  # scripts parsing their arguments at import time
        _install_builtins()
        signal.signal(signal.SIGALRM, _on_alarm)
        started = time.perf_counter()
        record: dict = {"mod": module}
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
            try:
                loaded = importlib.import_module(module)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            record["ok"] = True
            record["file"] = getattr(loaded, "__file__", None)
        except BaseException as exc:  # SystemExit, KeyboardInterrupt too
            signal.setitimer(signal.ITIMER_REAL, 0)
            text = str(exc).strip().splitlines()
            record.update(ok=False, error="Timeout" if isinstance(exc, _Timeout)
                          else type(exc).__name__,
                          message=(text[0] if text else "")[:300],
                          where=_where(exc.__traceback__, roots))
        record["seconds"] = round(time.perf_counter() - started, 4)
        emit(record)
    emit({"done": True, "stubbed_missing": sorted(set(_STUBBED_MISSING))})
    os._exit(0)  # threads started by imported code, atexit handlers: none of our business


if __name__ == "__main__":
    main()
