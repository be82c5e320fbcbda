class Backend:
    name = "flashmla"

    def forward(self, x):
        return x
