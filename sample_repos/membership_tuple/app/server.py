import app.backends  # noqa: F401  (registers the backends)
from app.draft import pick_draft_backend


def serve(requested=None):
    return pick_draft_backend(requested)
