import sys

from app.test.ci.ci_utils import TestFile, run_files

suites = {
    "per-commit": [
        TestFile("unit/test_server.py", 5),
        TestFile("npu/test_npu_ops.py", 30),
    ],
    "nightly": [
        "unit/test_legacy.py",
    ],
}

if __name__ == "__main__":
    files = [f if isinstance(f, TestFile) else TestFile(f) for f in suites[sys.argv[1]]]
    run_files(files, "/tmp/dumps")
