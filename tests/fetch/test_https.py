"""HTTPS through the pinned address: SNI, Host and the certificate check use the host name."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from deepresearch.errors import FetchError
from deepresearch.fetch import FetchConfig, FetchedPage, HostPolicy, PageFetcher

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")

BODY = b"<html><head><title>Over TLS</title></head><body><p>Secure page text about clocks.</p></body></html>"


class _Handler(BaseHTTPRequestHandler):
    hosts: list[str] = []

    def do_GET(self) -> None:
        self.hosts.append(self.headers.get("Host", ""))
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def tls_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path, list[str]]]:
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost"]
        + ["-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)
    names: list[str] = []
    server_context.sni_callback = lambda _sock, name, _ctx: names.append(name or "")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.socket = server_context.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield int(httpd.server_address[1]), cert, names
    httpd.shutdown()
    httpd.server_close()


def _fetcher(allow: str, cert: Path) -> PageFetcher:
    trust = ssl.create_default_context(cafile=str(cert))
    return PageFetcher(FetchConfig(timeout=5, allow=HostPolicy.parse(allow), verify=trust))


def test_https_by_name_connects_to_the_checked_address_with_the_name_in_sni_and_host(
    tls_site: tuple[int, Path, list[str]],
) -> None:
    port, cert, names = tls_site
    [got] = _fetcher("localhost", cert).fetch_many([f"https://localhost:{port}/page"])
    assert isinstance(got, FetchedPage), got
    assert got.title == "Over TLS" and got.text == "Secure page text about clocks."
    assert names[-1] == "localhost"
    assert _Handler.hosts[-1] == f"localhost:{port}"


def test_certificate_is_checked_against_the_name_in_the_url(tls_site: tuple[int, Path, list[str]]) -> None:
    port, cert, _ = tls_site
    [got] = _fetcher("127.0.0.1", cert).fetch_many([f"https://127.0.0.1:{port}/page"])
    assert isinstance(got, FetchError) and "CERTIFICATE_VERIFY_FAILED" in str(got)
