"""Litestar's hello-world, the reference the HTTP benchmark compares Sleuth against."""

from litestar import Litestar, get


@get("/")
async def hello() -> dict[str, str]:
    return {"hello": "world"}


app = Litestar(route_handlers=[hello])
