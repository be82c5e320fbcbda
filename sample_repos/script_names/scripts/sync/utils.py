from pkg.old import legacy

FOLDERS = ["a", "b"]
VERSION = legacy()
