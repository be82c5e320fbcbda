from app.fa3_kernels import fa3_fwd


class FA3Backend:
    def forward(self, q):
        return fa3_fwd(q)
