"""Resolve stage, CMake: the value types ``analyzer.resolve.cmake.evaluate`` returns.

Kept apart from the evaluator so later stages (graph, liveness, plan) can import the types
without the evaluator. All are frozen dataclasses with tuples, serialisable with
``analyzer.model.to_jsonable`` / ``from_jsonable``. Paths are repo-relative POSIX strings;
line numbers are 1-based and inclusive.
"""

from __future__ import annotations

from dataclasses import dataclass

from analyzer.model import ParseProblem


@dataclass(frozen=True)
class LineRange:
    file: str
    start_line: int
    end_line: int


@dataclass(frozen=True)
class SourceRef:
    """One source entry of a target, where it is written (``file``/``line``: the entry's own
    line, e.g. inside ``set(SOURCES ...)``, so one entry can be deleted)."""

    path: str | None  # resolved repo-relative path; None for fetched or unresolved entries
    raw: str  # the entry as written
    file: str
    line: int
    fetch: str | None  # fetched repo the entry comes from (``${repo-x_SOURCE_DIR}/...``)
    conditions: tuple[str, ...] = ()  # if()-conditions of the line that lists the entry
    off: bool = False  # one of ``conditions`` is false with the forced options: not compiled


@dataclass(frozen=True)
class CMakeTarget:
    name: str
    kind: str  # creating command, lower-cased: "python_add_library", "add_executable", ...
    file: str
    start_line: int
    end_line: int
    sources: tuple[SourceRef, ...]
    include_dirs: tuple[str, ...]  # repo-relative dirs; "@fetch:<name>/..." for fetched ones;
    #                                 the raw text when unresolved
    fetches: tuple[str, ...]  # fetched repos it uses (sources, include dirs, config args)
    config_ranges: tuple[LineRange, ...]  # every call configuring it (target_*, install, ...)
    install_destination: str | None
    conditions: tuple[str, ...]  # if()-conditions around its creation (incl. include sites)
    links: tuple[str, ...] = ()  # target_link_libraries items as evaluated (keywords dropped)
    depends: tuple[str, ...] = ()  # add_dependencies and $<TARGET_...:name> references
    variables: tuple[str, ...] = ()  # ${VAR}s written in its creating/configuring commands
    #                                  (and in the call creating it, when in a function)
    created_in: str | None = None  # user function/macro (outermost call) whose body creates it
    call_site: LineRange | None = None  # that call, when deleting it removes nothing but the
    #                                     targets it creates; None when it cannot be removed
    off: str | None = None  # why the build does not create it: an if()-condition around its
    #                         creation is false with the forced options; None: it may be built
    # target_compile_definitions items as evaluated: "TORCH_EXTENSION_NAME=_C", "USE_ROCM"
    definitions: tuple[str, ...] = ()
    # the CUDA architectures its configuring commands state (``resolve.cmake_archs``); None
    # when they state none the tree knows
    archs: tuple[str, ...] | None = None


@dataclass(frozen=True)
class FetchRepo:
    """``FetchContent_Declare`` / ``ExternalProject_Add``; populate calls in ``populate_ranges``."""

    name: str
    file: str
    start_line: int
    end_line: int
    url: str | None
    populate_ranges: tuple[LineRange, ...]
    make_available: bool = False  # FetchContent_MakeAvailable: its CMake may define targets
    declare_ranges: tuple[LineRange, ...] = ()  # further declarations (if/else branches)
    off: str | None = None  # every declaration and populate call sits under an if()-condition
    #                         that is false with the forced options: the build never fetches it


@dataclass(frozen=True)
class CMakeOption:
    name: str
    default: str  # as evaluated ("OFF" when omitted); the raw text if it has several values
    file: str
    line: int


@dataclass(frozen=True)
class IncludeEdge:
    """An ``include(file)`` or ``add_subdirectory(dir)``; ``to_file`` None when not in repo."""

    from_file: str
    to_file: str | None  # the included .cmake file or the subdirectory's CMakeLists.txt
    raw: str
    line: int
    start_line: int
    end_line: int
    kind: str = "include"  # "include" | "add_subdirectory"


@dataclass(frozen=True)
class Unresolved:
    file: str
    line: int
    what: str  # the text as written
    reason: str


@dataclass(frozen=True)
class OffBlock:
    """An ``if()``...``endif()`` statement none of whose commands runs with the forced options:
    each sits under a branch condition of the statement that is false (``reason``), decided by
    the forced ``options`` it names. Only its own conditions count, not those around it."""

    file: str
    start_line: int  # the if()
    end_line: int  # the endif()
    reason: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class CMakeProject:
    targets: tuple[CMakeTarget, ...]
    fetches: tuple[FetchRepo, ...]
    options: tuple[CMakeOption, ...]
    includes: tuple[IncludeEdge, ...]
    unresolved: tuple[Unresolved, ...]
    problems: tuple[ParseProblem, ...]
    off_blocks: tuple[OffBlock, ...] = ()  # in the files the evaluation ran, nested ones too
    forced: tuple[tuple[str, bool | str], ...] = ()  # the option values the evaluation forced


def extension_modules(project: CMakeProject) -> dict[str, str]:
    """Python module name -> target name, from ``install(TARGETS t ... DESTINATION pkg)``."""
    out: dict[str, str] = {}
    for t in project.targets:
        if t.install_destination:
            package = t.install_destination.strip("/").replace("/", ".")
            out.setdefault(f"{package}.{t.name}", t.name)
    return out
