class Backend:
    name = "fa3"

    def forward(self, x):
        return x
