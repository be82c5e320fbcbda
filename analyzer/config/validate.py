"""Config stage: validation of profile TOML into :class:`analyzer.config.profile.Profile`.

``tomllib`` gives values but no line numbers, so :class:`Locator` scans the (already valid) TOML
text once and maps every key path -- ``("features", "fa3", "paths")``, ``("registries", 2,
"kind")``, array elements by index, dotted keys, inline tables -- to the line it starts on.
:func:`build_profile` checks the parsed document strictly against the schema documented in
``docs/profiles.md`` and reports the first problem as ``<file>:<line>: <what>``.
"""

from __future__ import annotations

import bisect
from typing import Any, TypeVar

from analyzer.config.types import (
    OUTPUT_FORMATS,
    REGISTRY_KINDS,
    SCOPES,
    SELECT_MODES,
    ConfigOptions,
    Constant,
    Domain,
    DynamicImportHint,
    Feature,
    KeepEntry,
    PluginFamily,
    Profile,
    ProfileError,
    Registry,
)
from analyzer.errors import suggest

Path_ = tuple[str | int, ...]
T = TypeVar("T")

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class Locator:
    """Line numbers of key paths in a TOML text (lenient: the text already parsed)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        self.lines: dict[Path_, int] = {}
        self._aot: dict[tuple[str, ...], int] = {}
        self._scan()

    def line(self, path: Path_) -> int:
        """Line of ``path``, else of its longest recorded prefix, else 1."""
        for end in range(len(path), 0, -1):
            if path[:end] in self.lines:
                return self.lines[path[:end]]
        return 1

    # -- scanning
    def _lineno(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)

    def _record(self, path: Path_, pos: int) -> None:
        self.lines.setdefault(path, self._lineno(pos))

    def _record_keys(self, prefix: Path_, keys: list[str], pos: int) -> None:
        for end in range(1, len(keys) + 1):  # a dotted key also defines its parent tables
            self._record((*prefix, *keys[:end]), pos)

    def _scan(self) -> None:
        text, pos = self.text, 0
        prefix: Path_ = ()
        while pos < len(text):
            pos = self._skip(pos, newlines=True)
            if pos >= len(text):
                break
            if text.startswith("[[", pos):
                keys, pos = self._key(pos + 2)
                arr = tuple(keys)
                index = self._aot.get(arr, -1) + 1
                self._aot[arr] = index
                prefix = (*self._resolve(keys), index)
                self._record(prefix, pos)
                pos = text.find("]]", pos) + 2
            elif text[pos] == "[":
                keys, pos = self._key(pos + 1)
                prefix = self._resolve(keys)
                self._record(prefix, pos)
                pos = text.find("]", pos) + 1
            else:
                start = pos
                keys, pos = self._key(pos)
                self._record_keys(prefix, keys, start)
                pos = self._skip(pos)
                pos = self._value(pos + 1, (*prefix, *keys))  # past "="
            nl = text.find("\n", pos)
            pos = len(text) if nl < 0 else nl + 1

    def _resolve(self, keys: list[str]) -> Path_:
        """Insert the current index after every array-of-tables prefix of a header."""
        out: list[str | int] = []
        for i, key in enumerate(keys):
            out.append(key)
            if tuple(keys[: i + 1]) in self._aot and i + 1 < len(keys):
                out.append(self._aot[tuple(keys[: i + 1])])
        return tuple(out)

    def _skip(self, pos: int, newlines: bool = False) -> int:
        text = self.text
        while pos < len(text):
            ch = text[pos]
            if ch in " \t\r" or (newlines and ch == "\n"):
                pos += 1
            elif ch == "#":
                nl = text.find("\n", pos)
                pos = len(text) if nl < 0 else (nl + 1 if newlines else nl)
            else:
                break
        return pos

    def _key(self, pos: int) -> tuple[list[str], int]:
        text, keys = self.text, []
        while True:
            pos = self._skip(pos)
            if pos < len(text) and text[pos] in "\"'":
                end = self._string_end(pos)
                raw = text[pos + 1: end - 1]
                keys.append(raw if text[pos] == "'" else _unescape(raw))
                pos = end
            else:
                start = pos
                while pos < len(text) and text[pos] in _BARE:
                    pos += 1
                keys.append(text[start:pos])
            pos = self._skip(pos)
            if pos < len(text) and text[pos] == ".":
                pos += 1
                continue
            return keys, pos

    def _string_end(self, pos: int) -> int:
        text = self.text
        quote = text[pos]
        if text.startswith(quote * 3, pos):
            end = text.find(quote * 3, pos + 3)
            end = len(text) - 3 if end < 0 else end
            while text.startswith(quote, end + 3):  # up to two quotes may close the string
                end += 1
            return end + 3
        pos += 1
        while pos < len(text) and text[pos] != quote and text[pos] != "\n":
            pos += 2 if quote == '"' and text[pos] == "\\" else 1
        return pos + 1

    def _value(self, pos: int, path: Path_) -> int:
        text = self.text
        pos = self._skip(pos)
        if pos >= len(text):
            return pos
        ch = text[pos]
        if ch in "\"'":
            return self._string_end(pos)
        if ch == "[":
            pos, index = pos + 1, 0
            while True:
                pos = self._skip(pos, newlines=True)
                if pos >= len(text) or text[pos] == "]":
                    return pos + 1
                if text[pos] == ",":
                    pos += 1
                    continue
                self._record((*path, index), pos)
                pos = self._value(pos, (*path, index))
                index += 1
        if ch == "{":
            pos += 1
            while True:
                pos = self._skip(pos, newlines=True)
                if pos >= len(text) or text[pos] == "}":
                    return pos + 1
                if text[pos] == ",":
                    pos += 1
                    continue
                start = pos
                keys, pos = self._key(pos)
                self._record_keys(path, keys, start)
                pos = self._skip(pos)
                pos = self._value(pos + 1, (*path, *keys))
        while pos < len(text) and text[pos] not in ",]}\n#":
            pos += 1
        return pos


def _unescape(raw: str) -> str:
    try:
        return raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return raw


# --------------------------------------------------------------------------- building

TOP_KEYS = ("name", "description", "detect", "entry_points", "test_paths", "plugin_families",
            "registries", "constants", "domains", "features", "default_drops", "keep_targets",
            "system_libraries", "never_delete", "dynamic_imports", "platform_methods",
            # scan options (ConfigOptions): the command line overrides them
            "roots", "exclude", "drop", "keep", "default_roots", "strict", "format", "out",
            "fail_on_removable", "jobs", "cache_dir", "scope",
            # the profile this config adds to (analyzer/config/extends.py)
            "extends")
FAMILY_KEYS = ("name", "package", "select", "recursive", "companion_of")
REGISTRY_KEYS = ("name", "kind", "target", "key_arg", "key_keyword", "module_package", "keys",
                 "probed")
FEATURE_KEYS = ("description", "registry_keys", "paths", "identifiers", "constants",
                "cmake_options", "targets", "extension_modules", "fetches", "requires")
KEEP_KEYS = ("path", "symbol", "reason")
HINT_KEYS = ("source", "targets")


def _label(path: Path_) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            shown = part if part and set(part) <= _BARE else f'"{part}"'
            out += f".{shown}" if out else shown
    return out or "profile"


def _type_name(value: object) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
            dict: "table"}.get(type(value), type(value).__name__)


class _Builder:
    def __init__(self, text: str, source: str, base: tuple[str, ...]) -> None:
        self.loc = Locator(text)
        self.source = source
        self.base = base

    def line(self, path: Path_) -> int:
        return self.loc.line((*self.base, *path))

    def error(self, path: Path_, what: str) -> ProfileError:
        return ProfileError(f"{self.source}:{self.line(path)}: {what}")

    # -- typed getters
    def keys(self, table: dict[str, Any], allowed: tuple[str, ...], path: Path_) -> None:
        for key in table:
            if key not in allowed:
                where = f" in {_label(path)}" if path else ""
                raise self.error((*path, key), f"unknown key {key!r}{where}{suggest(key, allowed)}"
                                               f"; allowed: {', '.join(allowed)}")

    def expect(self, value: object, types: tuple[type[T], ...], path: Path_, what: str) -> T:
        """``value``, if it is one of ``types`` (a boolean only if ``bool`` is listed)."""
        if isinstance(value, types) and not (isinstance(value, bool) and bool not in types):
            return value
        raise self.error(path, f"{_label(path)} must be {what}, got {_type_name(value)}")

    def string(self, table: dict[str, Any], key: str, path: Path_, required: bool = False,
               default: str = "") -> str:
        if key not in table:
            if required:
                raise self.error(path, f"{_label(path)} needs {key!r}")
            return default
        value = self.expect(table[key], (str,), (*path, key), "a string")
        if required and not value.strip():
            raise self.error((*path, key), f"{_label((*path, key))} must not be empty")
        return value

    def strings(self, table: dict[str, Any], key: str, path: Path_) -> tuple[str, ...]:
        value = table.get(key, [])
        self.expect(value, (list,), (*path, key), "an array of strings")
        for i, item in enumerate(value):
            self.expect(item, (str,), (*path, key, i), "a string")
            if not item.strip():
                raise self.error((*path, key, i), f"{_label((*path, key, i))} must not be empty")
        return tuple(value)

    def spellings(self, table: dict[str, Any], key: str, path: Path_
                  ) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
        """An array whose items are strings or arrays of strings: one name, or the
        spellings one name has had across layouts of the tree (``["sgl_kernel/_fa4.py",
        "kernels/ops/fa4.py"]``). Returns every spelling, and the items as groups."""
        value = table.get(key, [])
        self.expect(value, (list,), (*path, key), "an array of strings")
        groups: list[tuple[str, ...]] = []
        for i, item in enumerate(value):
            where = (*path, key, i)
            self.expect(item, (str, list), where,
                        "a string, or an array of the spellings of one name")
            items = item if isinstance(item, list) else [item]
            if not items:
                raise self.error(where, f"{_label(where)} must not be empty")
            for j, spelling in enumerate(items):
                at = (*where, j) if isinstance(item, list) else where
                self.expect(spelling, (str,), at, "a string")
                if not spelling.strip():
                    raise self.error(at, f"{_label(at)} must not be empty")
            groups.append(tuple(items))
        return tuple(s for g in groups for s in g), tuple(groups)

    def table(self, table: dict[str, Any], key: str, path: Path_) -> dict[str, Any]:
        return self.expect(table.get(key, {}), (dict,), (*path, key), "a table")

    def tables(self, table: dict[str, Any], key: str, path: Path_) -> list[dict[str, Any]]:
        value = self.expect(table.get(key, []), (list,), (*path, key),
                            "an array of tables ([[" + key + "]])")
        for i, item in enumerate(value):
            self.expect(item, (dict,), (*path, key, i), "a table")
        return value

    def integer(self, table: dict[str, Any], key: str, path: Path_, default: int) -> int:
        value = self.expect(table.get(key, default), (int,), (*path, key), "an integer")
        if value < 0:
            raise self.error((*path, key), f"{_label((*path, key))} must be >= 0, got {value}")
        return value

    def choice(self, table: dict[str, Any], key: str, path: Path_, allowed: tuple[str, ...],
               default: str | None = None) -> str:
        value = self.string(table, key, path, required=default is None, default=default or "")
        if value not in allowed:
            raise self.error((*path, key), f"{_label((*path, key))} must be one of "
                             f"{', '.join(allowed)}; got {value!r}{suggest(value, allowed)}")
        return value

    def scalar_map(self, table: dict[str, Any], path: Path_, types: tuple[type, ...],
                   what: str) -> dict[str, Any]:
        for name, value in table.items():
            self.expect(value, types, (*path, name), what)
        return dict(table)

    def unique(self, items: list[Any], attr: str, path: Path_, what: str) -> None:
        seen: set[str] = set()
        for i, item in enumerate(items):
            name = getattr(item, attr)
            if name in seen:
                raise self.error((*path, i, attr), f"duplicate {what} {name!r}")
            seen.add(name)


def build_profile(data: dict[str, Any], text: str, source: str, base: tuple[str, ...],
                  default_name: str, parent: Profile | None = None) -> Profile:
    """Validate a parsed profile table and build the :class:`Profile`. ``parent``: the
    profile it extends, whose registries and features its names may refer to (the merge
    itself is :func:`analyzer.config.extends.extend`)."""
    b = _Builder(text, source, base)
    b.keys(data, TOP_KEYS, ())
    registries = [_registry(b, t, ("registries", i)) for i, t in
                  enumerate(b.tables(data, "registries", ()))]
    b.unique(registries, "name", ("registries",), "registry")
    inherited = parent.registries if parent is not None else ()
    kinds = {r.name: r.kind for r in (*inherited, *registries)}
    reg_names = tuple(kinds)
    families = [_family(b, t, ("plugin_families", i)) for i, t in
                enumerate(b.tables(data, "plugin_families", ()))]
    b.unique(families, "name", ("plugin_families",), "plugin family")
    constants = _constants(b, b.table(data, "constants", ()), ("constants",))
    domains = []
    for pattern, registry in b.table(data, "domains", ()).items():
        b.expect(registry, (str,), ("domains", pattern), "a registry name (string)")
        _known(b, registry, reg_names, ("domains", pattern), "registry")
        domains.append(Domain(pattern, registry, b.line(("domains", pattern))))
    features = {}
    for fname, ftable in b.table(data, "features", ()).items():
        b.expect(ftable, (dict,), ("features", fname), "a table")
        features[fname] = _feature(b, fname, ftable, ("features", fname), kinds)
    known = tuple(dict.fromkeys([*(parent.features if parent is not None else ()),
                                 *features]))
    for fname, feature in features.items():
        for i, name in enumerate(feature.requires):
            _known(b, name, known, ("features", fname, "requires", i), "feature")
    drops = b.strings(data, "default_drops", ())
    for i, name in enumerate(drops):
        _known(b, name, known, ("default_drops", i), "feature")
    keep = [_keep(b, t, ("never_delete", i)) for i, t in
            enumerate(b.tables(data, "never_delete", ()))]
    hints = [_hint(b, t, ("dynamic_imports", i)) for i, t in
             enumerate(b.tables(data, "dynamic_imports", ()))]
    return Profile(
        name=b.string(data, "name", (), default=default_name) or default_name,
        source=source,
        description=b.string(data, "description", ()),
        detect=b.strings(data, "detect", ()),
        entry_points=b.strings(data, "entry_points", ()),
        plugin_families=tuple(families),
        registries=tuple(registries),
        constants=constants,
        domains=tuple(domains),
        features=features,
        default_drops=drops,
        keep_targets=b.strings(data, "keep_targets", ()),
        never_delete=tuple(keep),
        dynamic_imports=tuple(hints),
        test_paths=b.strings(data, "test_paths", ()),
        system_libraries=b.strings(data, "system_libraries", ()),
        platform_methods=_platform_methods(b, b.table(data, "platform_methods", ())),
        options=_options(b, data, known),
    )


def _options(b: _Builder, data: dict[str, Any], features: tuple[str, ...]) -> ConfigOptions:
    def flag(key: str) -> bool | None:
        return b.expect(data[key], (bool,), (key,), "true or false") if key in data else None

    for key in ("drop", "keep"):
        for i, name in enumerate(b.strings(data, key, ())):
            _known(b, name, features, (key, i), "feature")
    formats = b.strings(data, "format", ())
    for i, fmt in enumerate(formats):
        if fmt not in OUTPUT_FORMATS:
            raise b.error(("format", i), f"format[{i}] must be one of "
                          f"{', '.join(OUTPUT_FORMATS)}; got {fmt!r}{suggest(fmt, OUTPUT_FORMATS)}")
    return ConfigOptions(
        roots=b.strings(data, "roots", ()), excludes=b.strings(data, "exclude", ()),
        drop=b.strings(data, "drop", ()), keep=b.strings(data, "keep", ()),
        use_default_roots=flag("default_roots"), strict=flag("strict"), formats=formats,
        out=b.string(data, "out", (), default="") or None,
        fail_on_removable=flag("fail_on_removable"),
        jobs=(b.integer(data, "jobs", (), 0) or None) if "jobs" in data else None,
        cache_dir=b.string(data, "cache_dir", (), default="") or None,
        scope=b.choice(data, "scope", (), SCOPES) if "scope" in data else None)


def _platform_methods(b: _Builder, table: dict[str, Any]) -> dict[str, str]:
    for method, constant in table.items():
        b.expect(constant, (str,), ("platform_methods", method),
                 "the qualified name of a platform constant (string)")
    return dict(table)


def _known(b: _Builder, name: str, known: tuple[str, ...], path: Path_, what: str) -> None:
    if name not in known:
        listing = ", ".join(known) if known else "none defined"
        plural = "registries" if what == "registry" else what + "s"
        raise b.error(path, f"unknown {what} {name!r}{suggest(name, known)}; "
                            f"known {plural}: {listing}")


def _registry(b: _Builder, t: dict[str, Any], path: Path_) -> Registry:
    b.keys(t, REGISTRY_KEYS, path)
    kind = b.choice(t, "kind", path, REGISTRY_KINDS)
    return Registry(
        name=b.string(t, "name", path, required=True),
        kind=kind,
        target=b.string(t, "target", path, required=kind != "values"),
        key_arg=b.integer(t, "key_arg", path, 0),
        key_keyword=b.string(t, "key_keyword", path),
        module_package=b.string(t, "module_package", path),
        line=b.line(path),
        keys=b.strings(t, "keys", path),
        probed=b.expect(t["probed"], (bool,), (*path, "probed"), "true or false")
        if "probed" in t else False,
    )


def _family(b: _Builder, t: dict[str, Any], path: Path_) -> PluginFamily:
    b.keys(t, FAMILY_KEYS, path)
    package = b.string(t, "package", path, required=True)
    select = b.choice(t, "select", path, SELECT_MODES, default="roots")
    companion = b.string(t, "companion_of", path)
    if select == "companion" and not companion:
        raise b.error((*path, "select"), f'{_label(path)}: select = "companion" needs '
                                         "companion_of (the package whose live modules it follows)")
    if companion and select != "companion":
        raise b.error((*path, "companion_of"), f'{_label(path)}: companion_of needs '
                                               'select = "companion"')
    recursive = t.get("recursive", False)
    b.expect(recursive, (bool,), (*path, "recursive"), "a boolean")
    return PluginFamily(name=b.string(t, "name", path, default=package) or package,
                        package=package, select=select, recursive=recursive,
                        companion_of=companion, line=b.line(path))


def _constants(b: _Builder, table: dict[str, Any], path: Path_) -> tuple[Constant, ...]:
    for name, value in table.items():
        if isinstance(value, dict):
            raise b.error((*path, name), f"{_label((*path, name))} is a table: quote dotted "
                                         f'constant names ("{name}.…" = value)')
    values = b.scalar_map(table, path, (bool, int, str), "a boolean, integer or string")
    return tuple(Constant(name, value, b.line((*path, name))) for name, value in values.items())


def _feature(b: _Builder, name: str, t: dict[str, Any], path: Path_,
             registries: dict[str, str]) -> Feature:
    b.keys(t, FEATURE_KEYS, path)
    keys: dict[str, tuple[str, ...]] = {}
    int_keys: dict[str, tuple[int, ...]] = {}
    rk_path = (*path, "registry_keys")
    for registry, items in b.table(t, "registry_keys", path).items():
        _known(b, registry, tuple(registries), (*rk_path, registry), "registry")
        if registries[registry] == "values" and isinstance(items, list) and any(
                type(k) is int for k in items):
            # a "values" registry may select by integers (fa_version == 3)
            for i, item in enumerate(items):
                b.expect(item, (str, int), (*rk_path, registry, i), "a string or an integer")
                if isinstance(item, str) and not item.strip():
                    raise b.error((*rk_path, registry, i),
                                  f"{_label((*rk_path, registry, i))} must not be empty")
            keys[registry] = tuple(k for k in items if isinstance(k, str))
            int_keys[registry] = tuple(k for k in items if type(k) is int)
            continue
        keys[registry] = b.strings(t["registry_keys"], registry, rk_path)
    constants = dict((c.name, c.value) for c in
                     _constants(b, b.table(t, "constants", path), (*path, "constants")))
    options = b.scalar_map(b.table(t, "cmake_options", path), (*path, "cmake_options"),
                           (bool, str), "a boolean or a string")
    spelled = {kind: b.spellings(t, kind, path) for kind in SPELLED_KINDS}
    return Feature(
        name=name,
        description=b.string(t, "description", path),
        registry_keys=keys,
        registry_int_keys=int_keys,
        paths=spelled["paths"][0],
        identifiers=spelled["identifiers"][0],
        constants=constants,
        cmake_options=options,
        targets=spelled["targets"][0],
        extension_modules=spelled["extension_modules"][0],
        fetches=spelled["fetches"][0],
        requires=b.strings(t, "requires", path),
        line=b.line(path),
        anchor_groups={kind: groups for kind, (flat, groups) in spelled.items()
                       if len(groups) != len(flat)},
    )


# the feature keys whose items may list the spellings of one name across layouts
SPELLED_KINDS = ("paths", "identifiers", "targets", "extension_modules", "fetches")


def _keep(b: _Builder, t: dict[str, Any], path: Path_) -> KeepEntry:
    b.keys(t, KEEP_KEYS, path)
    reason = b.string(t, "reason", path)
    if not reason.strip():
        raise b.error(path, f"{_label(path)} needs a non-empty 'reason' (why it must never be "
                            "deleted)")
    has_path, has_symbol = "path" in t, "symbol" in t
    if has_path == has_symbol:
        what = "both 'path' and 'symbol'" if has_path else "neither 'path' nor 'symbol'"
        raise b.error(path, f"{_label(path)} has {what}; give exactly one")
    value = b.string(t, "path" if has_path else "symbol", path, required=True)
    return KeepEntry(path=value if has_path else None, symbol=None if has_path else value,
                     reason=reason, line=b.line(path))


def _hint(b: _Builder, t: dict[str, Any], path: Path_) -> DynamicImportHint:
    b.keys(t, HINT_KEYS, path)
    targets = b.strings(t, "targets", path)
    if not targets:
        raise b.error(path, f"{_label(path)} needs a non-empty 'targets' array")
    return DynamicImportHint(source=b.string(t, "source", path, required=True), targets=targets,
                             line=b.line(path))
