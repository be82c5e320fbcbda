class LaunchSubcommandBase:
    name = ""

    @classmethod
    def cmd(cls):
        return cls.name


class RenderSubcommand(LaunchSubcommandBase):
    name = "render"


def launch_names():
    # a subclass registers itself by being defined: nothing names RenderSubcommand
    return [c.cmd() for c in LaunchSubcommandBase.__subclasses__()]
