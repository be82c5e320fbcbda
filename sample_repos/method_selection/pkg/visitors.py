class Visitor:
    def visit(self, kind):
        return getattr(self, f"visit_{kind}")()

    def visit_call(self):
        return "call"

    def visit_name(self):
        return "name"

    def legacy_walk(self):
        from pkg.legacy import walk

        return walk(self)

    def tested_only(self):
        return "a test calls it"
