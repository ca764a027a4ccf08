"""``SEARCH_INCLUDE_DOMAINS`` and ``SEARCH_EXCLUDE_DOMAINS``: which web hits may be read at all.

The research loop drops a hit here, before its page is fetched and before its text (a snippet, an
engine's page text) becomes a source, so an excluded site is never contacted and never cited. A
domain covers its subdomains (``example.org`` covers ``www.example.org``, not ``badexample.org``).
Only http(s) hits are judged: your own documents and notes are never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.search.base import SearchHit
from deepresearch.settings import Settings
from deepresearch.sourcekind import in_domain, web_host

LEFT_OUT = "SEARCH_INCLUDE_DOMAINS / SEARCH_EXCLUDE_DOMAINS do not let through"
"""The words of the notice for hits left out, which the research loop looks for."""


@dataclass(frozen=True)
class DomainFilter:
    """The domains to read only (none: all) and the domains never to read; exclusion wins."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> DomainFilter:
        return cls(settings.include_domains(), settings.exclude_domains())

    def allows(self, url: str) -> bool:
        """Whether a hit at ``url`` may be read: not a web URL, or of a domain the lists let through."""
        host = web_host(url)
        if host is None:
            return True
        if any(in_domain(host, domain) for domain in self.exclude):
            return False
        return not self.include or any(in_domain(host, domain) for domain in self.include)

    def apply(self, hits: Sequence[SearchHit]) -> tuple[list[SearchHit], list[str]]:
        """The hits that may be read, and a notice naming the domains of those left out."""
        kept = [hit for hit in hits if self.allows(hit.url)]
        dropped = [web_host(hit.url) or hit.url for hit in hits if not self.allows(hit.url)]
        if not dropped:
            return kept, []
        hosts = ", ".join(dict.fromkeys(dropped))
        return kept, [f"left out {len(dropped)} hit(s) that {LEFT_OUT}, unread: {hosts}"]
