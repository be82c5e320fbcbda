"""New undefined names after pruning: pyflakes on the files pruning edited, before and after.

    python bench/undefined_names.py ORIGINAL PRUNED [--files F ...] [--manifest manifest.json]

Which files: every Python file present in both trees whose content differs (found with
depgraph's discovery, so the same excludes apply); or only ``--files`` (paths relative to the
trees); or the files the manifest's deletions edit (every entry whose kind is not
``delete_file``). pyflakes runs as a library (``ast.parse`` + ``pyflakes.checker.Checker``).
Its ``UndefinedName``, ``UndefinedLocal`` and ``UndefinedExport`` messages are compared as
multisets of (file, message without line numbers); each one the pruned tree has more of is
printed as ``path:line: message``, and a pruned file that no longer parses counts as one new
problem. Exit 1 when anything is new, 0 otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the depgraph of this checkout (for analyzer.discover.walk)

Key = tuple[str, str, str]  # (path, message kind, name)


def python_files(tree: Path) -> set[str]:
    from analyzer.discover.walk import discover

    return {f.path for f in discover(tree).files if f.language == "python"}


def changed_files(original: Path, pruned: Path) -> list[str]:
    both = python_files(original) & python_files(pruned)
    return sorted(p for p in both if (original / p).read_bytes() != (pruned / p).read_bytes())


def manifest_files(manifest: Path) -> list[str]:
    data = json.loads(manifest.read_text(encoding="utf-8"))
    return sorted({d["path"] for d in data.get("deletions", [])
                   if d.get("kind") != "delete_file" and d.get("path", "").endswith(".py")})


def undefined(path: Path, rel: str) -> list[tuple[Key, int, str]] | str:
    """(key, line, text) of every undefined-name message; the error text when it won't parse."""
    from pyflakes import checker, messages

    kinds = (messages.UndefinedName, messages.UndefinedLocal, messages.UndefinedExport)
    source = path.read_bytes()
    try:
        tree = ast.parse(source, filename=rel)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", 0) or 0
        return f"{line}: does not parse: {getattr(exc, 'msg', exc)}"
    found = []
    for msg in checker.Checker(tree, filename=rel).messages:
        if isinstance(msg, kinds):
            args = msg.message_args if isinstance(msg.message_args, tuple) else \
                (msg.message_args,)  # UndefinedLocal of a builtin: the bare name
            key = (rel, type(msg).__name__, str(args[0]))
            found.append((key, msg.lineno, msg.message % msg.message_args))
    return found


def compare(original: Path, pruned: Path, files: list[str]) -> tuple[int, int, list[str]]:
    """(files checked, new problems, lines ``path:line: text`` to print).

    Equal messages (same file, kind and name) are counted: only the surplus is new. Which of
    several equal messages is the new one is not knowable, so all of them are printed, marked
    with the count the original had."""
    lines: list[str] = []
    checked = new = 0
    for rel in files:
        before_path, after_path = original / rel, pruned / rel
        if not after_path.is_file():
            continue  # deleted by the pruning: nothing left to be undefined
        checked += 1
        after = undefined(after_path, rel)
        before = undefined(before_path, rel) if before_path.is_file() else []
        if isinstance(after, str):
            if not isinstance(before, str):
                lines.append(f"{rel}:{after}")
                new += 1
            continue
        if isinstance(before, str):
            before = []
        counts = collections.Counter(key for key, _, _ in before)
        by_key: dict[Key, list[tuple[int, str]]] = collections.defaultdict(list)
        for key, line, text in after:
            by_key[key].append((line, text))
        for key, hits in sorted(by_key.items()):
            surplus = len(hits) - counts[key]
            if surplus <= 0:
                continue
            new += surplus
            note = f" ({counts[key]} in the original)" if counts[key] else ""
            lines.extend(f"{rel}:{line}: {text}{note}" for line, text in sorted(hits))
    return checked, new, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("original", type=Path)
    parser.add_argument("pruned", type=Path)
    parser.add_argument("--files", nargs="+", metavar="F", help="only these (relative) files")
    parser.add_argument("--manifest", type=Path, help="only the files this manifest edits")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the figures here")
    args = parser.parse_args(argv)
    for tree in (args.original, args.pruned):
        if not tree.is_dir():
            print(f"undefined_names: not a directory: {tree}", file=sys.stderr)
            return 2
    if args.files:
        files = sorted(set(args.files))
    elif args.manifest:
        try:
            files = manifest_files(args.manifest)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"undefined_names: cannot read {args.manifest}: {exc}", file=sys.stderr)
            return 2
    else:
        files = changed_files(args.original, args.pruned)
    checked, total, new = compare(args.original, args.pruned, files)
    for line in new:
        print(line)
    print(f"undefined names: {checked} files checked, {total} new")
    if args.json:
        args.json.write_text(json.dumps({"files_checked": checked, "new": total,
                                         "messages": new}, indent=1), encoding="utf-8")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
