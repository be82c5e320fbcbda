import app.backends  # noqa: F401  (registers the backends)
from app.draft import DraftBackendFactory
from app.registry import BACKENDS


def serve(runner, attention_backend="fa3"):
    backend = BACKENDS[attention_backend](runner)
    draft = DraftBackendFactory(runner).create(attention_backend)
    return backend.forward(1), draft.forward(2)
