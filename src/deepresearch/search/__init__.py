"""Search backends: the seam, the local index backend, and test doubles."""

from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome

__all__ = ["SearchBackend", "SearchHit", "SearchOutcome"]
