import subprocess
from dataclasses import dataclass

from app.debug.coredump import cleanup_dump_dir


@dataclass
class TestFile:
    name: str
    estimated_time: int = 60


def run_files(files, dump_dir):
    for f in files:
        subprocess.run(["python3", f.name], check=True)
    cleanup_dump_dir(dump_dir)
