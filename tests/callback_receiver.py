"""A real HTTP server on 127.0.0.1 recording POSTs: the callback and alt-webhook receiver."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

INTERACTIONS_DOC = Path(__file__).resolve().parents[1] / "docs" / "interactions.md"


def documented_signature(body: bytes, secret: str) -> str:
    """``X-Service-Signature`` as docs/interactions.md tells receivers to compute it.

    Deliberately independent of Sleuth's own ``sign()``/``verify()``: a test that checks a
    callback with the product's code cannot notice when that code drifts from the documented
    recipe (``v1=`` + hex HMAC-SHA256 of the raw body, keyed with the UTF-8 signing secret).
    """
    return "v1=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def documented_test_vector() -> tuple[str, bytes, str]:
    """The ``(secret, body, signature)`` test vector printed in docs/interactions.md."""
    text = INTERACTIONS_DOC.read_text(encoding="utf-8")
    found = re.search(r"secret: +(\S+)\nbody: +(.+)\nsignature: +(\S+)\n", text)
    assert found, "docs/interactions.md has no signature test vector"
    return found[1], found[2].encode("utf-8"), found[3]


@dataclass(frozen=True)
class Received:
    """One request the receiver got."""

    path: str
    headers: dict[str, str]
    body: bytes
    peer: tuple[str, int] = ("", 0)
    """The client's address and port: one port per TCP connection."""

    def json(self) -> Any:
        return json.loads(self.body)

    def assert_signed(self, secret: str, *, now: float | None = None) -> None:
        """The documented signature headers are present and right for this body and ``secret``."""
        signature = self.headers.get("X-Service-Signature")
        assert signature == documented_signature(self.body, secret), (
            f"X-Service-Signature {signature!r} is not the documented HMAC of the body"
        )
        stamp = self.headers.get("X-Service-Timestamp", "")
        assert stamp.isdigit(), f"X-Service-Timestamp {stamp!r} is not Unix seconds"
        assert abs(int(stamp) - (time.time() if now is None else now)) < 300


class CallbackReceiver:
    """Answers POSTs with the next of ``statuses`` (then ``default_status``); records them.

    Use as a context manager; ``url`` is ``http://127.0.0.1:<port>``.
    """

    def __init__(
        self,
        statuses: list[int] | None = None,
        *,
        default_status: int = 200,
        hold: threading.Event | None = None,
        keep_alive: bool = False,
    ) -> None:
        self.statuses = list(statuses or [])
        self.default_status = default_status
        self.hold = hold
        """When given, each request is recorded at once but answered only once this is set (a
        slow target)."""
        self.keep_alive = keep_alive
        """Answer in HTTP/1.1 and keep the connection open for the next request (by default
        HTTP/1.0: one connection per request)."""
        self.received: list[Received] = []
        self._cond = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver._cond:
                    status = (
                        receiver.statuses.pop(0) if receiver.statuses else receiver.default_status
                    )
                    receiver.received.append(
                        Received(
                            self.path,
                            {k: v for k, v in self.headers.items()},
                            body,
                            self.client_address[:2],
                        )
                    )
                    receiver._cond.notify_all()
                if receiver.hold is not None:
                    receiver.hold.wait()
                payload = b'{"ok": true}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> CallbackReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.hold is not None:
            self.hold.set()
        self._server.shutdown()
        self._server.server_close()

    def wait_for(self, count: int, timeout: float = 15.0) -> list[Received]:
        """Wait until ``count`` requests arrived (AssertionError after ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"expected {count} requests, got {len(self.received)} before the deadline"
                    )
                self._cond.wait(left)
            return list(self.received)

    def __iter__(self) -> Iterator[Received]:
        with self._cond:
            return iter(list(self.received))
