def main():
    import vllm.cli.serve
    from vllm.cli.launch import launch_names

    # the modules themselves are values: `m.cmd_init` is read from each
    cmd_modules = [vllm.cli.serve]
    return [cmd for m in cmd_modules for cmd in m.cmd_init()] + launch_names()
