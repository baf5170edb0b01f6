"""A callback receiver for the burst benchmark: a plain ASGI app under uvicorn, in its own process.

It answers every request ``200`` with an empty body (keep-alive, as any HTTP/1.1 server does) and
appends one line per callback POST to the file named by ``RECEIVER_LOG``: the arrival time (Unix
seconds), the interaction id and the client's port (one port per TCP connection, so the number of
distinct ports is the number of connections the callbacks used). ``GET /`` answers too (ready
check). Run by ``bench_bursts.py``::

    RECEIVER_LOG=/tmp/arrivals.txt python -m uvicorn bursts_receiver:app --port 8123
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

_log = open(os.environ.get("RECEIVER_LOG", os.devnull), "a", buffering=1)  # noqa: SIM115


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    if scope["method"] == "POST":
        interaction_id = json.loads(body)["interaction_id"]
        client = scope.get("client") or ("", 0)
        _log.write(f"{time.time():.6f} {interaction_id} {client[1]}\n")
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"0")]}
    )
    await send({"type": "http.response.body", "body": b""})
