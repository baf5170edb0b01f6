"""A client of the Prometheus HTTP API (``/api/v1``), over ``httpx``.

Any Prometheus-compatible server answers it: Prometheus, Thanos, Mimir, VictoriaMetrics. Only
what the pull needs: ``query`` (the connection test), ``query_range``, ``series`` and label
values. Every request has the client's timeout; every failure is a :class:`PrometheusError`
whose message names what went wrong in words an operator can act on (never a header value).
"""

from __future__ import annotations

import functools
import math
import ssl
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import httpx

__all__ = ["PrometheusClient", "PrometheusError", "Sample", "SeriesResult", "sample_value"]

Sample = list[Any]
"""One ``[unix seconds, "value"]`` pair, as the API gives it."""
SeriesResult = dict[str, Any]
"""One series of a range query: ``{"metric": {label: value}, "values": [Sample, ...]}``."""


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
            headers=dict(headers or {}),
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
        self, path: str, params: Sequence[tuple[str, str]], *, form: bool = False
    ) -> Any:
        """``data`` of a successful API answer; :class:`PrometheusError` otherwise. With
        ``form`` the parameters go as a form body (``POST``, which the API takes for queries:
        no URL length limit)."""
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
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or body.get("status") not in ("success", "error"):
            raise PrometheusError(
                f"answered HTTP {response.status_code} without a Prometheus API body"
            )
        if body["status"] != "success" or response.status_code != 200:
            error = str(body.get("error") or "").strip()[:300]
            raise PrometheusError(
                f"answered HTTP {response.status_code}" + (f": {error}" if error else ""),
                response.status_code,
            )
        return body.get("data")

    async def query(self, promql: str) -> list[dict[str, Any]]:
        """The instant vector of ``promql`` now (``/api/v1/query``)."""
        data = await self._get("/api/v1/query", [("query", promql)])
        if not isinstance(data, dict) or not isinstance(data.get("result"), list):
            raise PrometheusError("answered a query without a result")
        return list(data["result"])

    async def query_range(
        self, promql: str, start: datetime, end: datetime, step: float
    ) -> list[SeriesResult]:
        """The matrix of ``promql`` over ``[start, end]`` every ``step`` seconds, each series'
        samples oldest first (``/api/v1/query_range``)."""
        data = await self._get(
            "/api/v1/query_range",
            [
                ("query", promql),
                ("start", _unix(start)),
                ("end", _unix(end)),
                ("step", f"{step:g}"),
            ],
            form=True,
        )
        if not isinstance(data, dict) or data.get("resultType") != "matrix":
            raise PrometheusError("answered a range query without a matrix")
        result = data.get("result")
        if not isinstance(result, list):
            raise PrometheusError("answered a range query without a result")
        series: list[SeriesResult] = []
        for item in result:
            # Kept as the server gave them ([unix seconds, "value"] pairs): they are the evidence.
            if not isinstance(item, dict) or not isinstance(item.get("values"), list):
                raise PrometheusError("answered a range query with a malformed series")
            raw = item.get("metric")
            metric = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
            values = item["values"]
            if not all(
                isinstance(v, list)
                and len(v) == 2
                and isinstance(v[0], int | float)
                and isinstance(v[1], str)
                for v in values
            ):
                raise PrometheusError("answered a range query with malformed samples")
            series.append({"metric": metric, "values": values})
        return series

    async def series(
        self, matchers: Sequence[str], start: datetime, end: datetime
    ) -> list[dict[str, str]]:
        """The label sets of the series matching any of ``matchers`` in the range
        (``/api/v1/series``)."""
        params = [("match[]", m) for m in matchers]
        params += [("start", _unix(start)), ("end", _unix(end))]
        data = await self._get("/api/v1/series", params)
        if not isinstance(data, list):
            raise PrometheusError("answered a series lookup without a list")
        return [{str(k): str(v) for k, v in s.items()} for s in data if isinstance(s, dict)]

    async def label_values(self, label: str, start: datetime, end: datetime) -> list[str]:
        """Every value of ``label`` in the range (``/api/v1/label/<label>/values``)."""
        data = await self._get(
            f"/api/v1/label/{label}/values", [("start", _unix(start)), ("end", _unix(end))]
        )
        if not isinstance(data, list):
            raise PrometheusError("answered a label lookup without a list")
        return [str(v) for v in data]


def sample_value(sample: Sample) -> float | None:
    """A sample's value as a float, or None when it is not a finite number."""
    try:
        value = float(sample[1])
    except (TypeError, ValueError, IndexError):
        return None
    return value if math.isfinite(value) else None
