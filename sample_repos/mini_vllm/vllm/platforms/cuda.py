from vllm.attention.registry import AttentionBackendEnum


class CudaPlatform:
    @staticmethod
    def backend_priorities(use_mla: bool) -> list[AttentionBackendEnum]:
        if use_mla:
            return [
                AttentionBackendEnum.FLASH_ATTN_MLA,
                AttentionBackendEnum.FLASHMLA,
                AttentionBackendEnum.TRITON_MLA,
            ]
        return [AttentionBackendEnum.FLASH_ATTN, AttentionBackendEnum.TRITON_ATTN]

    @staticmethod
    def uses_varlen(backend: AttentionBackendEnum) -> bool:
        return backend in (AttentionBackendEnum.FLASH_ATTN, AttentionBackendEnum.FLASHMLA)

    @staticmethod
    def kernel_flags(backend: AttentionBackendEnum) -> dict[str, bool]:
        return dict(rocm=(backend == AttentionBackendEnum.ROCM_ATTN), varlen=True)
