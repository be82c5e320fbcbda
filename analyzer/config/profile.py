"""Config stage, before discovery: profiles say what a scan cannot see in the code.

Inference engines choose their parts at run time: platform probes (``is_npu()``,
``current_platform.is_rocm()``), string-keyed registries (``@register_attention_backend("fa3")``),
model packages walked by ``pkgutil``, choice lists in server arguments. A **profile** declares
those facts as data so the analysis can decide them statically: which calls fold to a constant,
which registrations belong to which feature, which packages are plugin families, what is always a
root. Profiles are TOML (``docs/profiles.md`` is the language reference); this module holds the
frozen value types, loading, the search order and the ``--drop``/``--keep`` arithmetic.
Validation and the line locator live in :mod:`analyzer.config.validate`.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from analyzer.config.types import (
    Constant,
    Profile,
    ProfileError,
)
from analyzer.errors import suggest

# --------------------------------------------------------------------------- loading


# keys of a config that are not the profile's: with only these (and ``extends``, ``name``,
# ``description``), a config that extends a built-in keeps the built-in as its source
OPTION_KEYS = frozenset({"roots", "exclude", "drop", "keep", "default_roots", "strict", "format",
                         "out", "fail_on_removable", "jobs", "cache_dir", "scope", "extends",
                         "name", "description"})


def load_profile_text(text: str, source: str, table: tuple[str, ...] = (),
                      scan_root: Path | None = None, seen: tuple[str, ...] = ()) -> Profile:
    """Parse and validate profile TOML. ``table`` selects a sub-table (``("tool", "depgraph")``).

    A config extends a base profile (:mod:`analyzer.config.extends`): the one its ``extends``
    key names (a built-in name, or a TOML file relative to the config's folder), else the
    built-in that detects ``scan_root`` (none without one); ``extends = false``: none. A
    built-in profile extends nothing."""
    from analyzer.config.extends import extend
    from analyzer.config.validate import Locator, build_profile

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = _toml_error_line(exc, text)
        raise ProfileError(f"{source}:{line}: invalid TOML: {_toml_error_what(exc)}") from None
    data: object = doc
    for part in table:
        if not isinstance(data, dict) or part not in data:
            raise ProfileError(f"{source}:1: no [{'.'.join(table)}] table")
        data = data[part]
    if not isinstance(data, dict):
        raise ProfileError(f"{source}:1: [{'.'.join(table)}] must be a table")
    parent = None
    if not source.startswith("builtin:"):
        where = f"{source}:{Locator(text).line((*table, 'extends'))}"
        parent = _base_profile(data.get("extends", True), where, source, scan_root,
                               (*seen, source))
    built = build_profile({k: v for k, v in data.items() if k != "extends"}, text, source,
                          table, _default_name(source), parent)
    if parent is None:
        return built
    merged = extend(parent, built, "name" in data, "description" in data)
    if set(data) <= OPTION_KEYS and parent.source.startswith("builtin:"):
        # only options on top of a built-in: its entries keep their own file and lines
        import dataclasses

        return dataclasses.replace(merged, source=parent.source, config=source,
                                   extends="")
    return merged


def _base_profile(value: object, where: str, source: str, scan_root: Path | None,
                  seen: tuple[str, ...]) -> Profile | None:
    """The profile a config's ``extends`` value names (True: the detected built-in)."""
    if value is False:
        return None
    if value is True:
        name = detected_builtin(scan_root) if scan_root is not None else None
        return builtin_profile(name) if name is not None else None
    if not isinstance(value, str) or not value.strip():
        raise ProfileError(f"{where}: extends must be a built-in profile name, a TOML file "
                           f"or false, got {value!r}")
    if value in builtin_names():
        return builtin_profile(value)
    path = Path(source).parent / value
    if not (value.endswith(".toml") or "/" in value or "\\" in value):
        names = builtin_names()
        raise ProfileError(f"{where}: extends: no built-in profile {value!r}"
                           f"{suggest(value, names)}; built-ins: {', '.join(names)}")
    if not path.is_file():
        raise ProfileError(f"{where}: extends: profile file {value} does not exist")
    if str(path) in seen or str(path.resolve()) in {str(Path(s).resolve()) for s in seen}:
        raise ProfileError(f"{where}: extends: {value} extends itself (a cycle)")
    return load_profile_file(path, scan_root, seen)


def load_profile_file(path: Path, scan_root: Path | None = None,
                      seen: tuple[str, ...] = ()) -> Profile:
    """Load ``depgraph.toml`` (or any TOML profile); a ``pyproject.toml`` uses [tool.depgraph].
    ``scan_root``: the tree scanned, whose detected built-in a config extends by default."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}:0: cannot read profile: {exc}") from None
    table = ("tool", "depgraph") if Path(path).name == "pyproject.toml" else ()
    return load_profile_text(text, str(path), table, scan_root, seen)


def builtin_names() -> list[str]:
    folder = resources.files("analyzer.config") / "profiles"
    if not folder.is_dir():
        return []
    return sorted(p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml"))


def builtin_text(name: str) -> str:
    """The TOML text of a built-in profile (comments included)."""
    folder = resources.files("analyzer.config") / "profiles"
    return (folder / f"{name}.toml").read_text(encoding="utf-8")


def detected_builtin(root: Path) -> str | None:
    """The first built-in profile whose ``detect`` globs all match under ``root``."""
    for name in builtin_names():
        profile = builtin_profile(name)
        if profile.detect and all(detect_glob_exists(root, g) for g in profile.detect):
            return name
    return None


def builtin_profile(name: str) -> Profile:
    names = builtin_names()
    if name not in names:
        raise ProfileError(f"builtin:{name}:0: no built-in profile {name!r}"
                           f"{suggest(name, names)}; available: {', '.join(names) or 'none'}")
    folder = resources.files("analyzer.config") / "profiles"
    text = (folder / f"{name}.toml").read_text(encoding="utf-8")
    return load_profile_text(text, f"builtin:{name}")


def select_profile(scan_root: Path, explicit: str | None) -> Profile | None:
    """The profile for a scan.

    ``explicit`` (``--profile``) is a file path or a built-in name. Otherwise the nearest
    config from ``scan_root`` up to the repository's top (``depgraph.toml``, else
    ``[tool.depgraph]`` in ``pyproject.toml``: :func:`analyzer.config.lookup.find_config`),
    its path globs rebased onto ``scan_root``; else the first built-in (by name) whose
    ``detect`` globs all match under ``scan_root``; else ``None``. A file extends the
    built-in that detects ``scan_root`` unless it says otherwise (``extends``).
    """
    from analyzer.config.lookup import find_config, rebased

    root = Path(scan_root)
    if explicit is not None:
        candidate = Path(explicit)
        if candidate.is_file():
            return load_profile_file(candidate, root)
        if explicit in builtin_names():
            return builtin_profile(explicit)
        if candidate.suffix == ".toml" or "/" in explicit or "\\" in explicit:
            raise ProfileError(f"{explicit}:0: profile file does not exist")
        names = builtin_names()
        raise ProfileError(f"{explicit}:0: not a profile file nor a built-in profile"
                           f"{suggest(explicit, names)}; built-ins: {', '.join(names)}")
    config = find_config(root)
    if config is not None:
        prefix = root.resolve().relative_to(config.parent).as_posix()
        return rebased(load_profile_file(config, root), "" if prefix == "." else prefix)
    name = detected_builtin(root)
    return builtin_profile(name) if name is not None else None


def own_entry_points(profile: Profile) -> tuple[str, ...]:
    """The entry points a profile of the user's declares itself (not those of the built-in
    it extends)."""
    if profile.source.startswith("builtin:"):
        return ()
    base = profile.extends.removeprefix("builtin:") if profile.extends.startswith(
        "builtin:") else None
    inherited = set(builtin_profile(base).entry_points) if base in builtin_names() else set()
    return tuple(e for e in profile.entry_points if e not in inherited)


def detect_glob_exists(root: Path, pattern: str) -> bool:
    """Whether ``pattern`` (a glob relative to ``root``) matches a file or directory.

    A leading ``**/`` matches at the root and up to three directory levels below it, so one
    profile detects a repository whether the scan targets its root or its ``python/`` folder.
    """
    pattern = pattern.strip("/")
    prefixes = [""]
    if pattern.startswith("**/"):
        pattern = pattern[3:]
        prefixes = ["", "*/", "*/*/", "*/*/*/"]
    for prefix in prefixes:
        for hit in root.glob(prefix + pattern):
            if not any(part.startswith(".") for part in hit.relative_to(root).parts):
                return True
    return False


# --------------------------------------------------------------------------- drops


def merge_drops(profile: Profile | None, drop: tuple[str, ...], keep: tuple[str, ...]
                ) -> tuple[str, ...]:
    """Features dropped for a scan: ``default_drops + drop - keep``, in that order, no repeats,
    then every feature that ``requires`` a dropped one (transitively), unless kept."""
    known = sorted(profile.features) if profile else []
    for flag, names in (("--drop", drop), ("--keep", keep)):
        for name in names:
            if name not in known:
                where = profile.source if profile else "no profile"
                listing = ", ".join(known) if known else "none (the profile defines no features)"
                raise ProfileError(f"{flag}: unknown feature {name!r}{suggest(name, known)} "
                                   f"({where}); known features: {listing}")
    out: list[str] = []
    for name in (*(profile.default_drops if profile else ()), *drop):
        if name not in keep and name not in out:
            out.append(name)
    changed = profile is not None
    while changed:
        changed = False
        for name, feature in (profile.features.items() if profile else ()):
            if name not in out and name not in keep and set(feature.requires) & set(out):
                out.append(name)
                changed = True
    return tuple(out)


def effective_constants(profile: Profile | None, drops: tuple[str, ...],
                        keep: tuple[str, ...] = ()) -> tuple[Constant, ...]:
    """The constants a scan folds with.

    The profile's own constants, except those a feature named in ``keep`` also names (keeping
    ``ascend`` un-fixes ``is_npu``), then the constants of every dropped feature, which override
    a profile constant of the same name.
    """
    if profile is None:
        return ()
    unfixed = {n for f in keep if f in profile.features for n in profile.features[f].constants}
    dropped: dict[str, Constant] = {}
    for fname in drops:
        feature = profile.features.get(fname)
        if feature is None:
            continue
        for name, value in feature.constants.items():
            dropped.setdefault(name, Constant(name, value, feature.line))
    out = [c for c in profile.constants if c.name not in unfixed and c.name not in dropped]
    return (*out, *dropped.values())


def effective_cmake_options(profile: Profile | None,
                            drops: tuple[str, ...]) -> dict[str, bool | str]:
    """The CMake options a scan forces: the ``cmake_options`` of every dropped feature. An
    option two dropped features force to different values is not forced at all (nothing can
    be decided from it)."""
    if profile is None:
        return {}
    values: dict[str, set[bool | str]] = {}
    for fname in drops:
        feature = profile.features.get(fname)
        if feature is None:
            continue
        for name, value in feature.cmake_options.items():
            values.setdefault(name, set()).add(value)
    return {name: next(iter(v)) for name, v in sorted(values.items()) if len(v) == 1}


# --------------------------------------------------------------------------- helpers


def _default_name(source: str) -> str:
    if source.startswith("builtin:"):
        return source.split(":", 1)[1]
    path = Path(source)
    if path.name in ("depgraph.toml", "pyproject.toml"):
        return path.resolve().parent.name or path.stem
    return path.stem


def _toml_error_line(exc: tomllib.TOMLDecodeError, text: str) -> int:
    doc_text = text
    lineno = getattr(exc, "lineno", None)  # Python >= 3.14
    if isinstance(lineno, int):
        return lineno
    text = str(exc)
    marker = "(at line "
    if marker in text:
        digits = text.split(marker, 1)[1].split(",", 1)[0].rstrip(")")
        if digits.isdigit():
            return int(digits)
    if "end of document" in text:
        return max(1, len(doc_text.rstrip("\n").split("\n")))
    return 1


def _toml_error_what(exc: tomllib.TOMLDecodeError) -> str:
    msg = getattr(exc, "msg", None)
    text = msg if isinstance(msg, str) else str(exc)
    return text.split(" (at ", 1)[0]
