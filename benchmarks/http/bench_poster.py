"""The delivery POST alone, in process: CPU per POST of the poster against httpx in the same run
(``python benchmarks/http/bench_poster.py``).

A local keep-alive HTTP/1.1 receiver (asyncio streams, answering ``200`` with an empty body) in
this process; ``--count`` POSTs of a callback-sized JSON body, ``--concurrency`` in flight (16:
the worker's per-key limit of deliveries to one target), through:

- ``poster``: :class:`~sleuth_shell.notify.http.AiohttpPoster`, as a delivery calls it (pinned to
  the address, the callback's headers);
- ``httpx``: one ``httpx.AsyncClient`` configured as the poster was before (no redirects, no
  environment, 128 connections);
- ``stream``: a bare asyncio stream writing a prebuilt request and reading the answer's head (the
  floor: what the sockets and the receiver cost).

Printed per round: the process CPU time per POST (``time.process_time``, the receiver's share
included) of each, alternated, and the poster's CPU as a share of httpx's.

    python benchmarks/http/bench_poster.py [--count 1000] [--concurrency 16] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable

import harness
import httpx

BODY = (
    b'{"interaction_id":"0b6f3c1e-5a4e-4d55-9d0e-8f7a2b1c3d4e","question":"What changed in'
    b' service 12?","content":"' + b"An answer of a few sentences. " * 28 + b'","sources":[]}'
)
HEADERS = {
    "Content-Type": "application/json",
    "X-Service-Org-Api-Key": "sk_" + "k" * 40,
    "X-Service-Signature": "sha256=" + "s" * 64,
    "X-Service-Timestamp": "1800000000",
    "X-Service-Delivery-Id": "web:0b6f3c1e-5a4e-4d55-9d0e-8f7a2b1c3d4e",
}


async def receive(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def cpu_per_post(count: int, concurrency: int, post: Callable[[], Awaitable[None]]) -> float:
    left = [count]

    async def sender() -> None:
        while left[0] > 0:
            left[0] -= 1
            await post()

    start = time.process_time()
    await asyncio.gather(*(sender() for _ in range(concurrency)))
    return (time.process_time() - start) / count


async def poster_round(url: str, count: int, concurrency: int) -> float:
    from sleuth_shell.notify.http import AiohttpPoster

    poster = AiohttpPoster()

    async def post() -> None:
        result = await poster.post(url, content=BODY, headers=HEADERS, connect_to="127.0.0.1")
        assert result.status_code == 200

    try:
        return await cpu_per_post(count, concurrency, post)
    finally:
        await poster.aclose()


async def httpx_round(url: str, count: int, concurrency: int) -> float:
    from sleuth_shell.notify.http import MAX_CONNECTIONS

    client = httpx.AsyncClient(
        timeout=10.0,
        follow_redirects=False,
        trust_env=False,
        limits=httpx.Limits(max_connections=MAX_CONNECTIONS),
    )

    async def post() -> None:
        response = await client.post(url, content=BODY, headers=HEADERS)
        assert response.status_code == 200

    try:
        return await cpu_per_post(count, concurrency, post)
    finally:
        await client.aclose()


async def stream_round(port: int, count: int, concurrency: int) -> float:
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    request = (
        f"POST /callback HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        + "".join(f"{name}: {value}\r\n" for name, value in HEADERS.items())
        + f"Content-Length: {len(BODY)}\r\n\r\n"
    ).encode() + BODY

    async def post() -> None:
        if idle:
            reader, writer = idle.pop()
        else:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        await reader.readuntil(b"\r\n\r\n")
        idle.append((reader, writer))

    try:
        return await cpu_per_post(count, concurrency, post)
    finally:
        for _reader, writer in idle:
            writer.close()


async def run(args: argparse.Namespace) -> None:
    server = await asyncio.start_server(receive, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{port}/callback"
    figures: dict[str, list[float]] = {"poster": [], "httpx": [], "stream": []}
    for _ in range(args.rounds):
        figures["poster"].append(await poster_round(url, args.count, args.concurrency))
        figures["httpx"].append(await httpx_round(url, args.count, args.concurrency))
        figures["stream"].append(await stream_round(port, args.count, args.concurrency))
    await asyncio.sleep(0.5)  # the receiver's connections see their clients close
    server.close()
    await server.wait_closed()
    print(harness.describe_machine())
    print(f"{args.count} POSTs, {args.concurrency} in flight, load {harness.loadavg()}")
    for name, values in figures.items():
        rounds = ", ".join(f"{v * 1e6:.0f}" for v in values)
        print(f"  {name:>6}: {statistics.median(values) * 1e6:7.0f} us CPU a POST ({rounds})")
    pairs = zip(figures["poster"], figures["httpx"], strict=True)
    print("poster / httpx CPU per POST, per round: " + ", ".join(f"{p / h:.2f}x" for p, h in pairs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(run(parser.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
