"""Config stage: the value types of a profile (frozen dataclasses), its error, and the kinds
its language knows. Loading lives in ``profile.py``, validation in ``validate.py``."""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.errors import ProfileError  # re-exported: the profile's error

__all__ = ["OUTPUT_FORMATS", "REGISTRY_KINDS", "SCOPES", "SELECT_MODES", "ConfigOptions",
           "Constant", "Domain", "DynamicImportHint", "Feature", "KeepEntry", "PluginFamily",
           "Profile", "ProfileError", "Registry"]

REGISTRY_KINDS = ("decorator", "dict", "choices", "enum", "call", "values")
SELECT_MODES = ("roots", "all", "companion")



@dataclass(frozen=True)
class Registry:
    """A string-keyed registration point."""

    name: str
    kind: str  # "decorator" | "dict" | "choices" | "enum" | "call" | "values"
    # qualified name of the decorator / dict / choice list / Enum / register function; ""
    # for "values": a set of strings the code selects by (device names) with no place of its own
    target: str
    key_arg: int = 0  # decorator, call: which positional argument holds the key
    line: int = 0
    # keys the registry knows besides its target's and the features' (all device names):
    # a dict display anywhere with two or more known keys is an instance of the registry
    keys: tuple[str, ...] = ()
    key_keyword: str = ""  # call: the keyword argument holding the key, instead of key_arg
    # dict: the values are (module, class) pairs of modules of this package
    # ("deepseek_v2", "DeepseekV2ForCausalLM"): an entry whose module the plan deletes goes too
    module_package: str = ""
    # dict: each entry's function probes whether its key applies (vLLM's platform plugins
    # are all called, the machine decides): no value the code hands on selects a key
    probed: bool = False


@dataclass(frozen=True)
class PluginFamily:
    """A package whose modules are loaded dynamically (pkgutil, importlib with computed names)."""

    name: str
    package: str
    select: str = "roots"  # "roots" | "all" | "companion"
    recursive: bool = False
    companion_of: str = ""  # select="companion": a module is live if it imports a live module here
    line: int = 0


@dataclass(frozen=True)
class Constant:
    """A probe or flag with a known value on the target platform."""

    name: str  # qualified name, "env:NAME", or an fnmatch glob over either
    value: bool | int | str | None
    line: int = 0


@dataclass(frozen=True)
class Domain:
    """Names whose string values range over a registry's keys."""

    pattern: str  # fnmatch over the tail of a dotted name chain: "*.attention_backend"
    registry: str
    line: int = 0


@dataclass(frozen=True)
class Feature:
    """A part of the tree that can be dropped as a whole (``--drop NAME``)."""

    name: str
    description: str
    registry_keys: dict[str, tuple[str, ...]]
    paths: tuple[str, ...]
    identifiers: tuple[str, ...]
    constants: dict[str, bool | int | str | None]
    cmake_options: dict[str, bool | str]  # a boolean option, or a string variable
    targets: tuple[str, ...]
    extension_modules: tuple[str, ...]
    fetches: tuple[str, ...]
    line: int = 0
    # features this one cannot work without: dropping one of them drops this one too
    requires: tuple[str, ...] = ()
    # integer keys of "values" registries (FlashAttention versions: ``fa_version == 3``)
    registry_int_keys: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # kind ("paths", "identifiers", ...) -> its items as the profile wrote them, where one
    # lists several spellings of one name (a file that moved): one anchor each
    anchor_groups: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)

    def anchors_of(self, kind: str) -> tuple[tuple[str, ...], ...]:
        """The anchors of one kind: each a tuple of the spellings that count as found."""
        groups = self.anchor_groups.get(kind)
        return groups if groups is not None else tuple((v,) for v in getattr(self, kind))


@dataclass(frozen=True)
class KeepEntry:
    """A ``never_delete`` entry: a path glob or a symbol, with the reason it must stay."""

    path: str | None
    symbol: str | None  # "pkg.mod:Name" (Name may be an fnmatch glob) or "pkg.mod"
    reason: str
    line: int = 0


@dataclass(frozen=True)
class DynamicImportHint:
    """A load static analysis cannot see: ``source`` imports ``targets`` at run time."""

    source: str  # "pkg.mod" or "pkg.mod:function"
    targets: tuple[str, ...]  # "pkg.mod", "pkg.mod:Name", "pkg.plugins.*", "pkg.plugins.**"
    line: int = 0


# report formats a config may name (outputs/render.py FORMATS: the same names)
OUTPUT_FORMATS = ("html", "json", "md", "sarif")
# what a scan plans (config/options.py ScanOptions.scope, pipeline/scope.py)
SCOPES = ("all", "features")


@dataclass(frozen=True)
class ConfigOptions:
    """Scan options written in the config (``depgraph.toml`` or ``[tool.depgraph]``), next to
    the profile; a value typed on the command line overrides its key. ``None``: not set."""

    roots: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    keep: tuple[str, ...] = ()
    use_default_roots: bool | None = None
    strict: bool | None = None
    formats: tuple[str, ...] = ()
    out: str | None = None
    fail_on_removable: bool | None = None
    jobs: int | None = None
    cache_dir: str | None = None
    scope: str | None = None  # "all" | "features"


@dataclass(frozen=True)
class Profile:
    name: str
    source: str  # file path or "builtin:<name>"
    description: str
    detect: tuple[str, ...]
    entry_points: tuple[str, ...]
    plugin_families: tuple[PluginFamily, ...]
    registries: tuple[Registry, ...]
    constants: tuple[Constant, ...]
    domains: tuple[Domain, ...]
    features: dict[str, Feature]
    default_drops: tuple[str, ...]
    keep_targets: tuple[str, ...]
    never_delete: tuple[KeepEntry, ...]
    dynamic_imports: tuple[DynamicImportHint, ...]
    test_paths: tuple[str, ...] = ()
    # libraries targets link that the build machine provides (find_package: ``torch``,
    # ``CUDA::*``), never a fetched repository: a target linking only these needs no fetch
    system_libraries: tuple[str, ...] = ()
    # platform dispatch: method name (fnmatch) -> the constant that selects it
    # ("forward_hip" -> "sglang.srt.utils.common.is_hip"): with the constant False on the
    # target, the method may go although its class's base lies outside the tree
    platform_methods: dict[str, str] = field(default_factory=dict)
    options: ConfigOptions = ConfigOptions()
    # the profile this one extends ("builtin:sglang", a file path), "" for none; the config
    # file a built-in was extended by when the config adds scan options only (then ``source``
    # stays the built-in's, so its lines stay true)
    extends: str = ""
    config: str = ""

    def registry(self, name: str) -> Registry | None:
        return next((r for r in self.registries if r.name == name), None)
