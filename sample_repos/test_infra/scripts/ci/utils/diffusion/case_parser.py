import ast
from pathlib import Path

RUN_SUITE_REL_PATH = "test/run_suite.py"


def suite_names(root):
    tree = ast.parse(Path(root, RUN_SUITE_REL_PATH).read_text())
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
