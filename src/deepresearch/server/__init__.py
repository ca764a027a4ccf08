"""The HTTP service: ``create_app(settings)`` builds the FastAPI app; ``deepresearch serve`` runs it."""

from deepresearch.server.app import create_app
from deepresearch.service import ServerOptions

__all__ = ["ServerOptions", "create_app"]
