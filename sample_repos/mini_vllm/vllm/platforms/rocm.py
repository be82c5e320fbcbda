from vllm.attention.registry import AttentionBackendEnum


class RocmPlatform:
    @staticmethod
    def backend_priorities(use_mla: bool) -> list[AttentionBackendEnum]:
        return [AttentionBackendEnum.ROCM_ATTN, AttentionBackendEnum.TRITON_MLA]
