import logging

from app.registry import BACKENDS

logger = logging.getLogger(__name__)


def pick_draft_backend(requested):
    supported_draft_backends = ("flashinfer", "fa3", "fa4", "triton")
    draft_backend = requested
    if draft_backend is None:
        draft_backend = "fa3"
    elif draft_backend not in supported_draft_backends:
        logger.warning("unsupported draft backend %s (supported: %s)", draft_backend,
                       supported_draft_backends)
        raise ValueError(draft_backend)
    return BACKENDS[draft_backend]()
