from app.grok_utils import expert_count


class GrokModel:
    def run(self):
        return expert_count()
