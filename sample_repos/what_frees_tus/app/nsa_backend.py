from kern.flash_mla import flash_mla_sparse_fwd


class NSABackend:
    def forward(self, q):
        return flash_mla_sparse_fwd(q)
