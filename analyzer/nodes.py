"""Shared by every stage from resolve on: the one owner of graph node ids and their kinds.

A node id says what it is by its prefix: ``py:<module>`` (kind ``module``, or ``extension`` /
``installed_package`` for modules the build creates), ``py:<module>:<name>`` (``symbol``: a
top-level function or class), ``ext:<package>`` (``external``), ``file:<path>``
(``native_file``), ``cmake:<path>`` (``cmake_file``), ``target:<name>``, ``fetch:<name>``,
``op:<namespace>::<name>``. ``SUPER_ROOT`` is the virtual node liveness starts from.
"""

from __future__ import annotations

from typing import Any

SUPER_ROOT = "<roots>"
PREFIXES = ("py:", "ext:", "file:", "cmake:", "target:", "fetch:", "op:")


def module_node(module: str) -> str:
    return f"py:{module}"


def symbol_node(module: str, name: str) -> str:
    return f"py:{module}:{name}"


def external_node(module: str) -> str:
    return f"ext:{module.split('.')[0]}"


def file_node(path: str) -> str:
    return f"file:{path}"


def cmake_node(path: str) -> str:
    return f"cmake:{path}"


def target_node(name: str) -> str:
    return f"target:{name}"


def fetch_node(name: str) -> str:
    return f"fetch:{name}"


def op_node(namespace: str, name: str) -> str:
    return f"op:{namespace}::{name.split('.')[0]}"


def describe(graph: Any, node: str) -> str:
    """``name (path:line)`` of a node, for chains and reports."""
    data = graph.nodes[node]
    where = data.get("path", "")
    if where and data.get("start_line"):
        where += f":{data['start_line']}"
    name = node[3:] if node.startswith(("py:", "op:")) else node
    return name + (f" ({where})" if where and where not in name else "")
