"""Which URLs the fetcher may contact: http(s) only, and only public addresses unless allowed.

A host name is resolved first and every address it resolves to is checked; the fetcher then
connects to the checked address itself, so a second DNS answer cannot swap in another one.
Loopback, private, link-local, multicast, reserved, unspecified and other non-global addresses
are refused, IPv4-mapped IPv6 forms included. ``FETCH_ALLOW_HOSTS`` lifts the check for listed
host names, addresses and networks (``localhost, 127.0.0.1, 10.0.0.0/8``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass

import httpx

from deepresearch.errors import ConfigurationError, FetchError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
ALLOWED_SCHEMES = frozenset({"http", "https"})
_HOW_TO_ALLOW = "add the host to FETCH_ALLOW_HOSTS to read it anyway"


@dataclass(frozen=True)
class HostPolicy:
    """Host names and networks the user allows despite their addresses."""

    names: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, allow_hosts: str | Iterable[str]) -> HostPolicy:
        """From ``"localhost, 127.0.0.1, 10.0.0.0/8"`` (or a list of such items). Raises
        :class:`ConfigurationError` for an item that is neither a host name nor an address."""
        items = allow_hosts.split(",") if isinstance(allow_hosts, str) else allow_hosts
        names: set[str] = set()
        networks: list[IPNetwork] = []
        for item in (i.strip() for i in items):
            if not item:
                continue
            network = _network(item)
            if network is not None:
                networks.append(network)
            elif _is_host_name(item):
                names.add(_normal_name(item))
            else:
                raise ConfigurationError(
                    f"FETCH_ALLOW_HOSTS: {item!r} is not a host name, an IP address or a network"
                )
        return cls(frozenset(names), tuple(networks))

    def allows_name(self, host: str) -> bool:
        return _normal_name(host) in self.names

    def allows_address(self, address: IPAddress) -> bool:
        return any(address.version == net.version and address in net for net in self.networks)


def check_scheme(url: httpx.URL) -> None:
    """Raise :class:`FetchError` unless ``url`` is http or https with a host."""
    if url.scheme not in ALLOWED_SCHEMES:
        raise FetchError(f"refused {url.scheme or 'scheme-less'} URL: only http and https pages are read")
    if not url.host:
        raise FetchError("refused URL without a host")


def blocked_reason(address: IPAddress) -> str | None:
    """Why ``address`` must not be contacted (``"loopback"``, ``"private"`` …), ``None`` if public."""
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        return blocked_reason(mapped)
    checks = (
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("unspecified", address.is_unspecified),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
        ("non-global", not address.is_global),
    )
    return next((name for name, hit in checks if hit), None)


async def safe_address(url: httpx.URL, policy: HostPolicy) -> str:
    """The address to connect to for ``url``: its host resolved, every answer checked against
    ``policy``. Raises :class:`FetchError` when resolution fails or an address is refused."""
    host = url.raw_host.decode("ascii")
    addresses = await resolve(host, url.port or (443 if url.scheme == "https" else 80))
    if not policy.allows_name(host):
        for address in addresses:
            reason = blocked_reason(address)
            if reason and not policy.allows_address(address):
                raise FetchError(f"refused {host}: {address} is a {reason} address; {_HOW_TO_ALLOW}")
    return str(addresses[0])


async def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to, IPv4 first (an IP literal is its own answer); raises
    :class:`FetchError` when it resolves to nothing."""
    literal = _address(host.strip("[]"))
    if literal is not None:
        return [literal]
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise FetchError(f"cannot resolve {host}: {exc}") from exc
    found = [_address(str(info[4][0])) for info in infos]
    addresses = list(dict.fromkeys(a for a in found if a is not None))
    if not addresses:
        raise FetchError(f"cannot resolve {host}: no usable address")
    return sorted(addresses, key=lambda address: address.version)


def _address(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _network(text: str) -> IPNetwork | None:
    try:
        return ipaddress.ip_network(text.strip("[]"), strict=False)
    except ValueError:
        return None


def _is_host_name(text: str) -> bool:
    return all(_label_ok(label) for label in _normal_name(text).split("."))


def _label_ok(label: str) -> bool:
    return bool(label) and all(c.isalnum() or c in "-_" for c in label)


def _normal_name(host: str) -> str:
    return host.strip().rstrip(".").lower()
