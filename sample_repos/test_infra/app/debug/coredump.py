import os


def cleanup_dump_dir(path):
    for name in os.listdir(path):
        os.remove(os.path.join(path, name))
