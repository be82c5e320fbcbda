class Backend:
    name = "triton"

    def forward(self, x):
        return x
