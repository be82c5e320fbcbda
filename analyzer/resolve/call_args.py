"""Resolve stage, Python: what the callers of a function pass for one of its parameters.

``getattr(torch.ops, namespace)`` inside ``debug_torch_op(op, name, *, namespace="sglang")``
reads the namespaces its callers pass -- here, none pass one, so only ``sglang``. For each
``ParamGetattr`` fact (``analyzer.extract.python_names``) the values are read from every call
of the function in the tree: a string literal argument, or the parameter's literal default
where a call does not pass it. Anything else -- an argument that is not a literal, ``*args``
or ``**kwargs`` at a call, the function named anywhere other than in a call or an import
(handed on as a value: its callers cannot be seen) -- leaves the parameter unresolved (None).

The callers are found in the bytes of every Python file (the function's name followed by
``(``) and read with tree-sitter: a pure function of those bytes and the name.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

import tree_sitter as ts

from analyzer.core.store import Query
from analyzer.extract import treesitter as tsu
from analyzer.extract.cache import stored_facts
from analyzer.extract.python_names import ParamGetattr
from analyzer.extract.python_nodes import _string_value
from analyzer.resolve.python import ModuleIndex, PyModule

# (module, scope, line) of a ParamGetattr -> the values its parameter takes (None: unknown)
ParamValues = dict[tuple[str, str, int], frozenset[str] | None]


def resolve_param_getattrs(index: ModuleIndex, sources: Mapping[str, bytes],
                           digests: Mapping[str, str] | None = None) -> ParamValues:
    """The values of every ``ParamGetattr`` of the tree, from its function's callers.

    The files are read in path order. A function named otherwise than in a call somewhere
    (:func:`function_uses`) has callers that cannot be seen: its parameters take unknown
    values, and no later file is searched for it. What one file's calls pass is a pure
    function of its bytes, the functions searched for in it and the calls asked about
    (function name and parameter: no module or line, which an edit elsewhere moves);
    the store keeps it per file, so a scan after one file changed (or of
    a pruned copy of the tree) searches the changed files again and reads the others back
    (``digests``: the sha256 of files' bytes known already, by path)."""
    wanted = [((name, pg.scope, pg.line), pg) for name in sorted(index.modules)
              for pg in getattr(index.modules[name].facts, "param_getattrs", ())]
    if not wanted:
        return {}
    asked: dict[bytes, dict[Signature, ParamGetattr]] = {}  # function name -> its calls
    for _key, pg in wanted:
        asked.setdefault(pg.function.encode(), {}).setdefault(signature(pg), pg)
    names = frozenset(asked)
    cache = stored_facts()
    stored = cache.get(_ENTRY, _VERSION, _KIND, CALL_ARGS) if cache is not None else None
    known: dict[str, FileCalls] = stored if isinstance(stored, dict) else {}
    now: dict[str, FileCalls] = {}
    values: dict[Signature, frozenset[str] | None] = {
        sig: frozenset() for sigs in asked.values() for sig in sigs}
    searched = set(asked)  # functions whose callers are all seen so far
    known_digests = digests or {}
    for path in sorted(sources):
        if not searched:
            break
        if not path.endswith((".py", ".pyi")):
            continue
        sha = known_digests.get(path) or hashlib.sha256(sources[path]).hexdigest()
        found = known.get(path)
        if found is not None and found.sha == sha:  # (the words searched before, reused;
            # the file is read again only for words not searched in it yet)
            named = (found.named & names) | (_named(sources[path], set(unsearched))
                                             if (unsearched := names - found.named_for)
                                             else frozenset())
        else:
            found, named = None, _named(sources[path], set(names))
        ask = searched & named
        calls = frozenset((name, sig) for name in ask for sig in asked[name])
        if found is None or found.calls != calls:
            found = _file_calls(path, sources[path], sha, named, names, calls, asked)
        elif found.named_for != names:
            found = dataclasses.replace(found, named=named, named_for=names)
        now[path] = found
        for name in found.unseen:
            searched.discard(name)
            for sig in asked[name]:
                values[sig] = None
        for sig, got in found.passes.items():
            have = values[sig]
            values[sig] = None if have is None or got is None else have | got
    if cache is not None and any(known.get(p) is not f for p, f in now.items()):
        cache.put(_ENTRY, _VERSION, _KIND, {**known, **now}, CALL_ARGS)
    return {key: values[signature(pg)] for key, pg in wanted}


# their facts-cache key: one entry for every file scanned with this cache (by path, each
# file's share checked against its bytes)
_ENTRY, _VERSION, _KIND = "<parameter values>", "by-file", "param-values"
CALL_ARGS = Query("call-args", code=("analyzer.resolve.call_args",))

# what a call passes for a ParamGetattr's parameter depends on these fields alone
Signature = tuple[str, str, int, "str | None", bool]


def signature(pg: ParamGetattr) -> Signature:
    """(function, parameter, position, default, has a default) of ``pg``."""
    return (pg.function, pg.param, pg.position, pg.default, pg.has_default)


@dataclass(frozen=True)
class FileCalls:
    """One file's share of :func:`resolve_param_getattrs`: the function names it holds as
    whole words (``named``) among those searched for (``named_for``; all of them when its
    bytes are not UTF-8: the parser then reads other bytes), the calls asked about of the
    functions searched for in it (``calls``: function name and signature), the functions it
    names otherwise than in a call (their callers cannot be seen) and what its calls pass
    for each other parameter."""

    sha: str
    named: frozenset[bytes]
    named_for: frozenset[bytes]
    calls: frozenset[tuple[bytes, Signature]]
    unseen: frozenset[bytes]
    passes: dict[Signature, frozenset[str] | None]


def _named(data: bytes, names: set[bytes]) -> frozenset[bytes]:
    """The ``names`` ``data`` holds as whole words (all of them when it is not UTF-8)."""
    if not names:
        return frozenset()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return frozenset(names)
    return frozenset(name for _at, name in word_hits(data, names))


def _file_calls(path: str, data: bytes, sha: str, named: frozenset[bytes],
                named_for: frozenset[bytes], calls: frozenset[tuple[bytes, Signature]],
                asked: Mapping[bytes, Mapping[Signature, ParamGetattr]]) -> FileCalls:
    unseen: set[bytes] = set()
    passes: dict[Signature, frozenset[str] | None] = {}
    if calls:
        for name, uses in function_uses({n for n, _sig in calls}, {path: data}).items():
            if any(found is None for found in uses.values()):
                unseen.add(name)  # (handed on as a value: its callers cannot be seen)
                continue
            for sig, pg in asked[name].items():
                passes[sig] = _values(pg, uses)
    return FileCalls(sha, named, named_for, calls, frozenset(unseen), passes)


def caller_values(pg: ParamGetattr, sources: Mapping[str, bytes]) -> frozenset[str] | None:
    """What the callers of ``pg.function`` pass for ``pg.param`` (see the module docstring)."""
    name = pg.function.encode()
    return _values(pg, function_uses({name}, sources).get(name, {}))


# path -> the argument lists of the calls in that file (None: the name is used otherwise)
FileUses = dict[str, list[ts.Node] | None]


def _values(pg: ParamGetattr, uses: FileUses) -> frozenset[str] | None:
    values: set[str] = set()
    for calls in uses.values():
        if calls is None:
            return None  # handed on as a value: its callers cannot be seen
        for args in calls:
            got = _argument(args, pg)
            if got is None:
                return None
            values |= got
    return frozenset(values)


def function_uses(names: set[bytes], sources: Mapping[str, bytes]) -> dict[bytes, FileUses]:
    """For each function name, its uses in the Python files naming it (as a word): each
    file is parsed once, whatever the number of names, and only the places the name occurs
    are read. A name used otherwise somewhere is None there, and no further file is read
    for it (its callers cannot be seen anyway)."""
    out: dict[bytes, FileUses] = {}
    if not names:
        return out
    open_names = set(names)  # not yet seen used otherwise
    for path, data in sources.items():
        if not open_names:
            break
        if not path.endswith((".py", ".pyi")):
            continue
        hits = word_hits(data, open_names)
        if not hits:
            continue
        root, parsed, _problems = tsu.parse_source(path, data, "python")
        if parsed is not data:  # (invalid UTF-8 replaced: the offsets are the parsed bytes')
            hits = word_hits(parsed, open_names)
        for name, calls in _uses(root, parsed, hits).items():
            if calls is None:
                out[name] = {path: None}
                open_names.discard(name)
            else:
                out.setdefault(name, {})[path] = calls
    return out


# the bytes of a word ([A-Za-z0-9_]): a name found between two others is part of a longer one
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def word_hits(data: bytes, names: set[bytes]) -> list[tuple[int, bytes]]:
    """(offset, name) of each place one of ``names`` occurs in ``data`` as a whole word, in
    order: what ``_words(names).finditer(data)`` finds, with one ``bytes.find`` scan per name
    (a whole word starting at an offset is one word, so at most one name matches there and
    no two matches overlap). A name with a byte that is not a word byte: the pattern."""
    if any(not _WORD_BYTES.issuperset(n) or not n for n in names):
        return [(m.start(), m.group()) for m in _words(names).finditer(data)]
    hits: list[tuple[int, bytes]] = []
    size = len(data)
    for name in names:
        at = data.find(name)
        while at != -1:
            end = at + len(name)
            if (at == 0 or data[at - 1] not in _WORD_BYTES) \
                    and (end == size or data[end] not in _WORD_BYTES):
                hits.append((at, name))
            at = data.find(name, end)
    hits.sort()
    return hits


def _words(names: set[bytes]) -> re.Pattern[bytes]:
    """A pattern matching any of ``names`` as a whole word."""
    return re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join(
        re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n))) + rb")(?![A-Za-z0-9_])")


def _uses(root: ts.Node | None, data: bytes, hits: list[tuple[int, bytes]]
          ) -> dict[bytes, list[ts.Node] | None]:
    """For each name at the byte offsets ``hits`` (a function's last name, where it occurs
    in ``data``): the argument lists of every call of it; None when the name is used
    otherwise (not in a call, its own ``def`` or an import). An unparsed file (``root``
    None): None for each."""
    if root is None:
        return dict.fromkeys(name for _at, name in hits)
    out: dict[bytes, list[ts.Node] | None] = {name: [] for _at, name in hits}
    for at, name in hits:
        calls = out[name]
        if calls is None:
            continue  # already used otherwise
        node = root.descendant_for_byte_range(at, at + len(name))
        if node is None or node.type != "identifier" or node.start_byte != at \
                or node.end_byte != at + len(name):
            continue  # in a string, a comment or a longer name
        parent = node.parent
        if parent is None:
            out[name] = None
            continue
        callee = parent if parent.type == "attribute" and \
            parent.child_by_field_name("attribute") == node else node
        call = callee.parent
        if call is not None and call.type == "call" and call.child_by_field_name(
                "function") == callee:
            args = call.child_by_field_name("arguments")
            if args is None or args.type != "argument_list":
                out[name] = None
                continue
            calls.append(args)
        elif (parent.type in ("function_definition", "class_definition") and \
                parent.child_by_field_name("name") == node) or _in_import(parent):
            continue
        else:
            out[name] = None
    return out


def _in_import(node: ts.Node | None) -> bool:
    while node is not None:
        if node.type in ("import_statement", "import_from_statement"):
            return True
        if node.type in ("expression_statement", "block", "module"):
            return False
        node = node.parent
    return False


def _argument(args: ts.Node, pg: ParamGetattr) -> set[str] | None:
    """The values one call passes for the parameter (its default when it passes none)."""
    positional: list[ts.Node] = []
    for a in args.named_children:
        if a.type in ("list_splat", "dictionary_splat"):
            return None
        if a.type == "keyword_argument":
            key = a.child_by_field_name("name")
            if key is not None and key.text is not None and key.text.decode() == pg.param:
                return _literal(a.child_by_field_name("value"))
        elif a.type != "comment":
            positional.append(a)
    if 0 <= pg.position < len(positional):
        return _literal(positional[pg.position])
    if pg.has_default:
        return {pg.default} if pg.default is not None else None
    return set()  # not passed and no default: the call fails, it reads nothing


def _literal(node: ts.Node | None) -> set[str] | None:
    if node is None or node.type != "string":
        return None
    value = _string_value(node)
    return {value} if value is not None else None


def resolved_member_names(mod: PyModule, scope: str, lines: tuple[int, ...], pattern: str
                          ) -> list[str] | None:
    """The names a computed attribute read (``getattr(self, f"_create_{name}_backend")``, its
    skeleton ``pattern``) takes, when every read on ``lines`` is a parameter's template whose
    callers pass literals (``analyzer.resolve.call_args``); None when one is not."""
    values: dict[tuple[str, int], frozenset[str] | None] = mod.derived.get("param_values", {})
    by_line = {pg.line: pg for pg in mod.facts.param_getattrs
               if pg.scope.split(".")[0] == scope.split(".")[0] and pg.template != "{}"}
    names: set[str] = set()
    for line in lines:
        pg = by_line.get(line)
        if pg is None or pg.template.replace("{}", "*") != pattern:
            return None
        got = values.get((pg.scope, pg.line))
        if got is None:
            return None
        names.update(pg.template.format(v) for v in got)
    return sorted(names)
