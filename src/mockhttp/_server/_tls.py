"""https: a throwaway certificate authority made for the run, with ``trustme``.

``Server(tls=True)`` (``mockhttp serve --tls``) makes a CA and a certificate it signs for
the server's host, ``localhost``, ``127.0.0.1`` and ``::1``, in a temporary folder: the
CA's PEM (``ca.pem``, the file clients trust: ``server.ca_path``) and the server's key and
chain (``server.pem``).  ``serve --workers`` makes them once and gives every worker the
same folder (``Server(tls=FOLDER)``).

Rule 1: faults keep their meaning under TLS.  A cut ends the connection without TLS's
``close_notify`` (the transport is aborted once what was written has left), so the client
sees a truncated stream, not a clean end; a reset is a TCP reset as without TLS.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import shutil
import ssl
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from .._core._errors import ConfigError

__all__ = [
    "ByAlpn",
    "Certs",
    "Handshake",
    "TLSChoice",
    "certs_for",
    "client_context",
    "kept_certs",
    "make_certs",
    "require",
    "spki_sha256",
]

#: ``Server(tls=...)``: off, a new CA for the run, or the folder of one made before.
TLSChoice = bool | str | os.PathLike[str]
CA_FILE = "ca.pem"
SERVER_FILE = "server.pem"  # the server's private key, then its certificate chain


@dataclass(frozen=True)
class Certs:
    """The run's CA and the server's certificate, as files in ``folder``."""

    folder: Path
    made: bool  # made for this server (removed when it closes), not given to it

    @property
    def ca_path(self) -> Path:
        return self.folder / CA_FILE

    @property
    def server_path(self) -> Path:
        return self.folder / SERVER_FILE

    def server_context(self, http2: bool = False) -> ssl.SSLContext:
        """The listening side: the server's certificate; HTTP/1.1 offered by ALPN (and
        HTTP/2 first, ``h2``, when ``http2``)."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.server_path)
        context.set_alpn_protocols(["h2", "http/1.1"] if http2 else ["http/1.1"])
        return context

    def remove(self) -> None:
        if self.made:
            shutil.rmtree(self.folder, ignore_errors=True)


def require() -> None:
    """Raise the clear error now if ``trustme`` is missing."""
    _trustme()


def _trustme() -> Any:
    try:
        import trustme
    except ImportError:
        raise ConfigError(
            "tls=True needs the trustme package: pip install 'mockhttp[tls]'"
        ) from None
    return trustme


def make_certs(host: str, folder: Path | None = None) -> Certs:
    """A new CA and a certificate it signs for ``host`` and the loopback names."""
    trustme = _trustme()
    ca = trustme.CA(organization_name="mockhttp", organization_unit_name="throwaway test CA")
    names = dict.fromkeys([host, "localhost", "127.0.0.1", "::1"])
    cert = ca.issue_cert(*[name for name in names if name not in ("", "0.0.0.0", "::")])
    made = folder is None
    where = Path(tempfile.mkdtemp(prefix="mockhttp-tls-")) if folder is None else folder
    where.mkdir(parents=True, exist_ok=True)
    ca.cert_pem.write_to_path(str(where / CA_FILE))
    cert.private_key_and_cert_chain_pem.write_to_path(str(where / SERVER_FILE))
    return Certs(where, made)


def kept_certs(host: str, folder: Path) -> Path:
    """``folder`` holding a CA and a server certificate (``serve --ca-dir``): those already
    there, else new ones made there (for ``host`` and the loopback names)."""
    if not ((folder / CA_FILE).is_file() and (folder / SERVER_FILE).is_file()):
        make_certs(host, folder)
    return folder


def certs_for(tls: TLSChoice, host: str) -> Certs | None:
    """What ``Server(tls=...)`` serves with (None: plain http)."""
    if tls is False:
        return None
    if tls is True:
        return make_certs(host)
    if isinstance(tls, str | os.PathLike):
        certs = Certs(Path(tls), made=False)
        for path in (certs.ca_path, certs.server_path):
            if not path.is_file():
                raise ConfigError(
                    f"tls={str(tls)!r}: no {path.name} in it (a folder made by tls=True)"
                )
        return certs
    raise ConfigError(f"tls={tls!r} must be True, False or a folder of certificates")


def client_context(ca_path: Path) -> ssl.SSLContext:
    """A client's context that trusts the run's CA (and verifies host names)."""
    return ssl.create_default_context(cafile=str(ca_path))


def spki_sha256(certs: Certs) -> str:
    """The base64 SHA-256 of the server certificate's public key (Chromium's
    ``--ignore-certificate-errors-spki-list`` trusts exactly that key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    pem = certs.server_path.read_bytes()
    start = pem.index(b"-----BEGIN CERTIFICATE-----")
    cert = x509.load_pem_x509_certificate(pem[start:])
    der = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def _alpn(transport: asyncio.BaseTransport) -> str | None:
    """The protocol the client chose by ALPN (None: it offered none)."""
    ssl_object = transport.get_extra_info("ssl_object")
    return None if ssl_object is None else cast(str | None, ssl_object.selected_alpn_protocol())


class Handshake(asyncio.Protocol):
    """A new TCP connection of a https server: reading paused until ``start_tls`` has
    wrapped it, then handed to ``connection`` as a TLS transport.  Until then the raw
    transport is kept in ``pending`` so that closing the server can abort it (asyncio
    does not close connections still in their handshake)."""

    def __init__(
        self,
        connection: asyncio.Protocol,
        context: ssl.SSLContext,
        pending: set[asyncio.Transport],
        timeout: float,
        http2: Callable[[], asyncio.Protocol] | None = None,
    ) -> None:
        self.connection = connection
        self.http2 = http2  # makes the connection when the client chose "h2" by ALPN
        self.context = context
        self.pending = pending
        self.timeout = timeout
        self.early: list[bytes] = []  # read before start_tls returned
        self.eof = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        raw = cast(asyncio.Transport, transport)
        raw.pause_reading()  # the ClientHello stays in the kernel until start_tls reads it
        self.pending.add(raw)
        asyncio.get_running_loop().create_task(self._wrap(raw))

    async def _wrap(self, raw: asyncio.Transport) -> None:
        loop = asyncio.get_running_loop()
        try:
            tls = await loop.start_tls(
                raw,
                self,  # what arrives with the client's Finished waits here (``early``)
                self.context,
                server_side=True,
                ssl_handshake_timeout=self.timeout,
            )
        except (OSError, ssl.SSLError, asyncio.TimeoutError, RuntimeError):
            raw.abort()  # a failed handshake: the client saw its alert, or went away
            return
        finally:
            self.pending.discard(raw)
        if tls is None or raw.is_closing():
            return
        if self.http2 is not None and _alpn(tls) == "h2":
            self.connection = self.http2()
        tls.set_protocol(self.connection)
        self.connection.connection_made(tls)
        for data in self.early:
            self.connection.data_received(data)
        self.early.clear()
        if self.eof and not self.connection.eof_received():
            tls.close()

    def data_received(self, data: bytes) -> None:
        self.early.append(data)

    def eof_received(self) -> bool:
        self.eof = True
        return True


class ByAlpn(asyncio.Protocol):
    """A connection whose TLS handshake the loop did (uvloop's ``connect_accepted_socket``
    with ``ssl``, ``_accept.py`` Rule 4): given the TLS transport, it hands it to the
    protocol the client chose by ALPN, ``http2`` for "h2", else ``connection``."""

    def __init__(
        self,
        connection: Callable[[], asyncio.Protocol],
        http2: Callable[[], asyncio.Protocol] | None = None,
    ) -> None:
        self.connection = connection
        self.http2 = http2

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        chosen = self.http2 if self.http2 is not None and _alpn(transport) == "h2" else None
        inner = (chosen or self.connection)()
        transport.set_protocol(inner)
        inner.connection_made(transport)
