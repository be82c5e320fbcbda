from app.platform import is_cuda, is_hip

_is_cuda = is_cuda()
_is_hip = is_hip()

if _is_cuda:
    from app.kernels import fast_topk
elif _is_hip:
    from app.kernels import hip_topk as fast_topk
else:
    from app.common import fast_topk
