"""A client of the Prometheus HTTP API (``/api/v1``), over ``httpx``.

Any Prometheus-compatible server answers it: Prometheus, Thanos, Mimir, VictoriaMetrics. Only
what the pull needs: ``query`` (the connection test), ``query_range``, ``series`` and label
values. Every request has the client's timeout; every failure is a :class:`PrometheusError`
whose message names what went wrong in words an operator can act on (never a header value).

Queries go as a form ``POST`` (which the API takes for queries: no URL length limit, and no
per-character URL checks in the client), lookups as ``GET``; answers are asked for without
compression (``Accept-Encoding: identity``: the source does not spend its CPU compressing what a
local network carries at once) and decoded and checked in one pass by ``msgspec`` against the
shape the API documents.
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any, Generic, Literal, NotRequired, TypedDict, TypeVar

import httpx
import msgspec

__all__ = ["PrometheusClient", "PrometheusError", "Sample", "SeriesResult"]

#: Sample times are unix seconds within what a ``datetime`` holds (1970 to the year 9999); a
#: fractional time under a millisecond is refused too, so that every time a snapshot keeps is
#: written alike by any JSON encoder (never in exponent form: see
#: `~sleuth_shell.datasources.snapshots`).
_END_OF_TIME = 253_402_300_800
_Time = (
    Annotated[int, msgspec.Meta(ge=0, lt=_END_OF_TIME)]
    | Annotated[float, msgspec.Meta(ge=0.001, lt=_END_OF_TIME)]
)
Sample = tuple[_Time, str]
"""One ``[unix seconds, "value"]`` pair, as the API gives it."""


class SeriesResult(TypedDict):
    """One series of a range query: ``{"metric": {label: value}, "values": [Sample, ...]}``."""

    metric: NotRequired[dict[str, str]]
    values: list[Sample]


_T = TypeVar("_T")


class _Answer(msgspec.Struct, Generic[_T]):
    """An API answer: ``data`` when it succeeded, ``error`` when not."""

    status: Literal["success", "error"]
    data: _T | None = None
    error: str = ""


class _Matrix(msgspec.Struct):
    resultType: str
    result: list[SeriesResult]


class _Vector(msgspec.Struct):
    resultType: str
    result: list[dict[str, Any]]


_RANGE = msgspec.json.Decoder(_Answer[_Matrix])
_INSTANT = msgspec.json.Decoder(_Answer[_Vector])
_LABEL_SETS = msgspec.json.Decoder(_Answer[list[dict[str, str]]])
_STRINGS = msgspec.json.Decoder(_Answer[list[str]])


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """httpx's default verification context, made once per process (loading the CA bundle takes
    tens of milliseconds, more than a whole local query)."""
    return httpx.create_ssl_context()


class PrometheusError(Exception):
    """A request the server did not answer as the Prometheus HTTP API does (or at all).

    ``status`` is the HTTP status of an error answer (None when there was none)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def refused(self) -> bool:
        """Whether the server refused the request itself (a 4xx: e.g. a query it cannot
        parse), as opposed to failing or not answering."""
        return self.status is not None and 400 <= self.status < 500


def _unix(value: datetime) -> str:
    return f"{value.timestamp():.3f}"


class PrometheusClient:
    """One data source's API at ``url`` (its base, e.g. ``http://prometheus:9090``), sending
    ``headers`` with every request; ``timeout`` seconds per request."""

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str] | None = None,
        *,
        timeout: float = 5.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self._client = httpx.AsyncClient(
            base_url=self.url,
            headers={"Accept-Encoding": "identity", **(headers or {})},
            timeout=timeout,
            transport=transport,
            follow_redirects=False,
            verify=_ssl_context(),
        )

    async def __aenter__(self) -> PrometheusClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _get(
        self,
        path: str,
        params: Sequence[tuple[str, str]],
        decoder: msgspec.json.Decoder[_Answer[_T]],
        what: str,
        *,
        form: bool = False,
    ) -> _T:
        """``data`` of a successful API answer, decoded and checked by ``decoder`` (``what``
        names the request in errors); :class:`PrometheusError` otherwise. With ``form`` the
        parameters go as a form body (``POST``), else in the URL (``GET``)."""
        try:
            if form:
                response = await self._client.post(path, data=dict(params))
            else:
                response = await self._client.get(path, params=list(params))
        except httpx.TimeoutException:
            raise PrometheusError(f"did not answer within {self.timeout:g} s") from None
        except httpx.HTTPError as exc:
            reason = str(exc).strip() or type(exc).__name__
            raise PrometheusError(f"could not be reached ({reason})") from None
        try:
            answer = decoder.decode(response.content)
        except msgspec.ValidationError as exc:
            if response.status_code == 200 and "- at `$.data" in str(exc):
                raise PrometheusError(f"answered {what} with a malformed result ({exc})") from None
            answer = None  # not an API answer (or an error answer shaped like none)
        except msgspec.DecodeError:
            answer = None
        if answer is None:
            raise PrometheusError(
                f"answered HTTP {response.status_code} without a Prometheus API body"
            )
        if answer.status != "success" or response.status_code != 200:
            error = answer.error.strip()[:300]
            raise PrometheusError(
                f"answered HTTP {response.status_code}" + (f": {error}" if error else ""),
                response.status_code,
            )
        if answer.data is None:
            raise PrometheusError(f"answered {what} without a result")
        return answer.data

    async def query(self, promql: str) -> list[dict[str, Any]]:
        """The instant vector of ``promql`` now (``/api/v1/query``)."""
        data = await self._get("/api/v1/query", [("query", promql)], _INSTANT, "a query", form=True)
        return data.result

    async def query_range(
        self, promql: str, start: datetime, end: datetime, step: float
    ) -> list[SeriesResult]:
        """The matrix of ``promql`` over ``[start, end]`` every ``step`` seconds, each series'
        samples oldest first (``/api/v1/query_range``), kept as the server gave them (the
        ``[unix seconds, "value"]`` pairs are the evidence)."""
        params = [
            ("query", promql),
            ("start", _unix(start)),
            ("end", _unix(end)),
            ("step", f"{step:g}"),
        ]
        data = await self._get("/api/v1/query_range", params, _RANGE, "a range query", form=True)
        if data.resultType != "matrix":
            raise PrometheusError("answered a range query without a matrix")
        for item in data.result:
            if "metric" not in item:
                item["metric"] = {}
        return data.result

    async def series(
        self, matchers: Sequence[str], start: datetime, end: datetime
    ) -> list[dict[str, str]]:
        """The label sets of the series matching any of ``matchers`` in the range
        (``/api/v1/series``)."""
        params = [("match[]", m) for m in matchers]
        params += [("start", _unix(start)), ("end", _unix(end))]
        return await self._get("/api/v1/series", params, _LABEL_SETS, "a series lookup")

    async def label_values(self, label: str, start: datetime, end: datetime) -> list[str]:
        """Every value of ``label`` in the range (``/api/v1/label/<label>/values``)."""
        return await self._get(
            f"/api/v1/label/{label}/values",
            [("start", _unix(start)), ("end", _unix(end))],
            _STRINGS,
            "a label lookup",
        )
