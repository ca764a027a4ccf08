"""The kind of a source — scholarly, reference work, news, forum or unknown — from its URL and its
metadata alone, never from a model's opinion.

The rules, in order (the first that holds decides):

1. **scholarly**: it came from a scholarly engine (``arxiv``, ``semantic_scholar``, ``pubmed``),
   or it names authors and a year (publication metadata), or its host is of a domain in
   :data:`SCHOLARLY` (preprint servers, indexes, publishers' journal sites, ``doi.org``);
2. **forum**: its host is in :data:`FORUMS` (Reddit, Stack Exchange sites, Hacker News, Quora …),
   or begins with ``forum.``, ``forums.``, ``community.`` or ``discuss.``, or its path begins with
   ``/forum``, or it is a GitHub or GitLab issue or discussion;
3. **reference**: a reference work — an encyclopedia or dictionary in :data:`REFERENCE`
   (Wikipedia in any language, Britannica, the Stanford Encyclopedia of Philosophy …);
4. **news**: a news organisation in :data:`NEWS`, or a host beginning with ``news.``;
5. **unknown**: everything else, your own documents included.

The report shows the kind beside each reference (unknown is left unsaid). Where the evidence
conflicts — two answers score the same — the one whose source ranks first in :data:`KIND_ORDER`
is stated (scholarly, then reference, news, unknown, forum); nothing else is weighted by kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal
from urllib.parse import urlsplit

SourceKind = Literal["scholarly", "reference", "news", "forum", "unknown"]
KIND_ORDER: tuple[SourceKind, ...] = ("scholarly", "reference", "news", "unknown", "forum")
SCHOLARLY_BACKENDS = frozenset({"arxiv", "semantic_scholar", "pubmed"})

SCHOLARLY = frozenset(
    {
        "arxiv.org", "biorxiv.org", "medrxiv.org", "ssrn.com", "osf.io", "zenodo.org", "hal.science",
        "doi.org", "pubmed.ncbi.nlm.nih.gov", "ncbi.nlm.nih.gov", "europepmc.org", "semanticscholar.org",
        "openreview.net", "aclanthology.org", "jstor.org", "nature.com", "science.org", "cell.com",
        "thelancet.com", "nejm.org", "bmj.com", "plos.org", "frontiersin.org", "mdpi.com",
        "sciencedirect.com", "springer.com", "wiley.com", "tandfonline.com", "sagepub.com",
        "oup.com", "cambridge.org", "acm.org", "ieee.org", "aps.org", "iop.org", "pnas.org",
    }
)  # fmt: skip
FORUMS = frozenset(
    {
        "reddit.com", "stackoverflow.com", "stackexchange.com", "superuser.com", "serverfault.com",
        "askubuntu.com", "mathoverflow.net", "quora.com", "news.ycombinator.com", "discord.com",
        "discourse.org", "4chan.org", "lobste.rs",
    }
)  # fmt: skip
REFERENCE = frozenset(
    {
        "wikipedia.org", "wikidata.org", "wiktionary.org", "britannica.com", "plato.stanford.edu",
        "iep.utm.edu", "scholarpedia.org", "encyclopedia.com", "merriam-webster.com",
        "dictionary.cambridge.org", "oed.com", "larousse.fr", "treccani.it", "duden.de",
    }
)  # fmt: skip
NEWS = frozenset(
    {
        "reuters.com", "apnews.com", "afp.com", "bbc.com", "bbc.co.uk", "nytimes.com",
        "theguardian.com", "washingtonpost.com", "wsj.com", "ft.com", "bloomberg.com", "economist.com",
        "cnn.com", "npr.org", "aljazeera.com", "dw.com", "france24.com", "lemonde.fr", "spiegel.de",
        "elpais.com", "corriere.it", "nhk.or.jp", "abc.net.au", "cbc.ca", "politico.com", "axios.com",
    }
)  # fmt: skip
_FORUM_PREFIXES = ("forum.", "forums.", "community.", "discuss.")
_CODE_HOSTS = frozenset({"github.com", "gitlab.com"})
_THREAD_PATHS = ("/issues/", "/discussions/")


def source_kind(
    url: str, backend: str = "", *, authors: Sequence[str] = (), year: int | None = None
) -> SourceKind:
    """The kind of the source at ``url`` found by ``backend`` (the rules of the module docstring)."""
    if backend in SCHOLARLY_BACKENDS or (authors and year):
        return "scholarly"
    host = web_host(url)
    if host is None:
        return "unknown"
    path = urlsplit(url).path.lower()
    if _listed(host, SCHOLARLY):
        return "scholarly"
    if _listed(host, FORUMS) or host.startswith(_FORUM_PREFIXES) or _thread(host, path):
        return "forum"
    if _listed(host, REFERENCE):
        return "reference"
    if _listed(host, NEWS) or host.startswith("news."):
        return "news"
    return "unknown"


def kind_rank(kind: str) -> int:
    """The place of ``kind`` in :data:`KIND_ORDER` (0 first); an unknown word ranks as unknown."""
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else KIND_ORDER.index("unknown")


def web_host(url: str) -> str | None:
    """The lower-case host of an http(s) URL (no trailing dot, no ``www.``), or None for any other."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return parts.hostname.lower().rstrip(".").removeprefix("www.")


def in_domain(host: str, domain: str) -> bool:
    """``host`` is ``domain`` or one of its subdomains (``en.wikipedia.org`` is in ``wikipedia.org``)."""
    return host == domain or host.endswith("." + domain)


def _thread(host: str, path: str) -> bool:
    if path.startswith("/forum"):
        return True
    return host in _CODE_HOSTS and any(part in path for part in _THREAD_PATHS)


def _listed(host: str, domains: frozenset[str]) -> bool:
    parts = host.split(".")
    return any(".".join(parts[i:]) in domains for i in range(len(parts)))
