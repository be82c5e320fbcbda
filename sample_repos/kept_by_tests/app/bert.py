class BertModel:
    def run(self):
        return "bert"
