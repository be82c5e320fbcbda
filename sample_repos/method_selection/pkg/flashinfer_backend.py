class Backend:
    name = "flashinfer"

    def forward(self, x):
        return x
