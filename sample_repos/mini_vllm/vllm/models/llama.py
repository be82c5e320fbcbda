class LlamaForCausalLM:
    def forward(self, x):
        return x
