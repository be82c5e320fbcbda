"""What the check counts per function: the names a function reads and how often it binds
each of them, over the nodes of its own scope (its header included, nested functions,
classes and lambdas excluded). Expected values written from the rule, line by line."""

from __future__ import annotations

from analyzer.plan.check.lint import function_bindings, parse

SOURCE = (b"def outer(x=DEFAULT):\n"            # 1  the default is read by `outer`
          b"    import json\n"                  # 2  binds json
          b"    y = [json for json in x]\n"     # 3  binds json, y; reads json, x
          b"    f = lambda: y + z\n"            # 4  binds f; the lambda's reads are its own
          b"    @decor\n"                       # 5  read by `inner`, not by `outer`
          b"    def inner(q=w):\n"              # 6  binds inner
          b"        return y\n"                 # 7
          b"    del y\n"                        # 8  binds y (a deletion is a binding)
          b"    match x:\n"                     # 9
          b"        case [a, *rest]:\n"         # 10 pattern names are not Name nodes
          b"            return json, y, a\n"    # 11
          b"    class C:\n"                     # 12 binds C (never read)
          b"        attr = y\n"                 # 13 the class's, not `outer`'s
          b"    return inner\n")                # 14


def test_reads_and_bindings_per_function_scope() -> None:
    tree = parse(SOURCE, "m.py")
    assert tree is not None
    starts: dict[str, int] = {}
    counts, reads = function_bindings(tree, [], starts)
    assert reads == {"outer": frozenset({"DEFAULT", "json", "x", "y", "a", "inner"}),
                     "outer.inner": frozenset({"decor", "w", "y"})}
    # only names the function also reads are counted: not f, C (bound, never read)
    assert counts == {"outer": {"json": 2, "y": 2, "inner": 1}}
    assert starts == {"outer": 1, "outer.inner": 6}


def test_bindings_in_folded_ranges_are_not_counted() -> None:
    tree = parse(SOURCE, "m.py")
    assert tree is not None
    counts, _reads = function_bindings(tree, [(3, 3), (8, 8)])
    # both of y's bindings lie in folded lines: none runs, so none is counted
    assert counts == {"outer": {"json": 1, "inner": 1}}
