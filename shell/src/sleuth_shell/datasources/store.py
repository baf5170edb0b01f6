"""Data sources: validation of the API bodies, storage, the header cipher and the connection test.

A data source is ``{name, kind: "prometheus", url, headers?, service_label?}``. ``name`` is
unique in the organization; ``url`` is the base of a Prometheus-compatible HTTP API (``http`` or
``https``, no credentials in it: they go in ``headers``, which are encrypted at rest and never
returned); ``service_label`` is the label naming a service in its series (default ``service``).
Admins set the URL, so it may be a private address.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.datasources.crypto import HeaderCipher, SealedHeadersError
from sleuth_shell.datasources.prometheus import PrometheusClient, PrometheusError
from sleuth_shell.db.models import DataSource
from sleuth_shell.db.server_secrets import load_server_secret

__all__ = [
    "DEFAULT_SERVICE_LABEL",
    "KINDS",
    "DataSourceConflict",
    "DataSourceError",
    "DataSourceInput",
    "check_connection",
    "create",
    "get",
    "headers_of",
    "list_all",
    "load_cipher",
    "parse_create",
    "parse_update",
    "remove",
    "update",
]

KINDS: tuple[str, ...] = ("prometheus",)
DEFAULT_SERVICE_LABEL = "service"
MAX_NAME = 200
MAX_URL = 2000
MAX_HEADERS = 20
MAX_HEADER_VALUE = 4096
_LABEL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_MEMBERS = {"name", "kind", "url", "headers", "service_label"}


class DataSourceError(ValueError):
    """A body that is not a valid data source (the message is the 400 detail)."""


class DataSourceConflict(ValueError):
    """Another data source of the organization has the name (the message is the 409 detail)."""


@dataclass(frozen=True)
class DataSourceInput:
    """A validated body: ``headers`` is None when the body did not give them."""

    name: str
    kind: str
    url: str
    service_label: str
    headers: dict[str, str] | None


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataSourceError("name must be a non-empty string")
    if len(value) > MAX_NAME or "\x00" in value:
        raise DataSourceError(f"name must be at most {MAX_NAME} characters, without NUL")
    return value.strip()


def _kind(value: Any) -> str:
    if value not in KINDS:
        raise DataSourceError(f"Unknown kind: {value} (supported: {', '.join(KINDS)})")
    return str(value)


def _url(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataSourceError("url must be a non-empty string")
    text = value.strip()
    if len(text) > MAX_URL or any(c.isspace() or ord(c) < 32 for c in text):
        raise DataSourceError(
            f"Invalid url: {text[:100]} (at most {MAX_URL} characters, no spaces)"
        )
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise DataSourceError(f"Invalid url: {text[:100]}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DataSourceError(
            f"Invalid url: {text[:100]} (the base URL of the API, http:// or https://)"
        )
    if parts.username is not None or parts.password is not None:
        raise DataSourceError(
            "url must not carry credentials; send them as headers (e.g. Authorization)"
        )
    if parts.query or parts.fragment or port == 0:
        raise DataSourceError(
            f"Invalid url: {text[:100]} (the API's base URL, without a query or fragment)"
        )
    return text.rstrip("/")


def _service_label(value: Any) -> str:
    if value is None:
        return DEFAULT_SERVICE_LABEL
    if not isinstance(value, str) or not _LABEL.match(value) or len(value) > MAX_NAME:
        raise DataSourceError(
            f"Invalid service_label: {str(value)[:100]} (a Prometheus label name)"
        )
    return value


def _headers(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise DataSourceError("headers must be an object of header names to string values")
    if len(value) > MAX_HEADERS:
        raise DataSourceError(f"headers may hold at most {MAX_HEADERS} headers")
    out: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not _TOKEN.match(key) or len(key) > 200:
            raise DataSourceError(f"Invalid header name: {str(key)[:100]}")
        if not isinstance(item, str):
            raise DataSourceError(f"The value of header {key} must be a string")
        if len(item) > MAX_HEADER_VALUE or any(c in item for c in "\r\n\x00"):
            # The value is a secret: never echoed.
            raise DataSourceError(
                f"The value of header {key} must be at most {MAX_HEADER_VALUE} characters, "
                "on one line"
            )
        out[key] = item
    return out


def _object(body: Any) -> Mapping[str, Any]:
    if not isinstance(body, dict):
        raise DataSourceError("Request body must be a JSON object")
    unknown = sorted(set(body) - _MEMBERS)
    if unknown:
        raise DataSourceError(f"Unknown field: {unknown[0]}")
    return body


def parse_create(body: Any) -> DataSourceInput:
    """A ``POST`` body, validated (:class:`DataSourceError` naming the first problem)."""
    data = _object(body)
    for member in ("name", "kind", "url"):
        if member not in data:
            raise DataSourceError(f"Missing required field: {member}")
    return DataSourceInput(
        name=_name(data["name"]),
        kind=_kind(data["kind"]),
        url=_url(data["url"]),
        service_label=_service_label(data.get("service_label")),
        headers=_headers(data.get("headers")),
    )


def parse_update(body: Any) -> dict[str, Any]:
    """A ``PUT`` body: the members it gives, validated (``headers`` replaces every header;
    ``null`` or ``{}`` removes them)."""
    data = _object(body)
    out: dict[str, Any] = {}
    if "name" in data:
        out["name"] = _name(data["name"])
    if "kind" in data:
        out["kind"] = _kind(data["kind"])
    if "url" in data:
        out["url"] = _url(data["url"])
    if "service_label" in data:
        out["service_label"] = _service_label(data["service_label"])
    if "headers" in data:
        out["headers"] = _headers(data["headers"])
    return out


async def load_cipher(
    factory: async_sessionmaker[AsyncSession], configured_secret: str | None
) -> HeaderCipher:
    """The header cipher keyed by the server secret (``SLEUTH_SECRET_KEY`` or the generated
    one)."""
    return HeaderCipher(await load_server_secret(factory, configured_secret))


def _conflict(name: str) -> DataSourceConflict:
    return DataSourceConflict(f"A data source named {name} already exists")


async def create(
    session: AsyncSession, org_id: int, data: DataSourceInput, cipher: HeaderCipher
) -> DataSource:
    """Store a new data source (committed); :class:`DataSourceConflict` on a taken name."""
    headers = data.headers or {}
    row = DataSource(
        org_id=org_id,
        name=data.name,
        kind=data.kind,
        url=data.url,
        service_label=data.service_label,
        headers=cipher.seal(org_id, headers) if headers else None,
        header_names=sorted(headers),
    )
    session.add(row)
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        raise _conflict(data.name) from None
    return row


async def update(
    session: AsyncSession,
    row: DataSource,
    changes: Mapping[str, Any],
    cipher: HeaderCipher,
) -> DataSource:
    """Apply the members of ``changes`` (from :func:`parse_update`) and commit."""
    for member in ("name", "kind", "url", "service_label"):
        if member in changes:
            setattr(row, member, changes[member])
    if "headers" in changes:
        headers: dict[str, str] = changes["headers"]
        row.headers = cipher.seal(row.org_id, headers) if headers else None
        row.header_names = sorted(headers)
    name = row.name
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        raise _conflict(name) from None
    await session.refresh(row)
    return row


async def remove(session: AsyncSession, row: DataSource) -> None:
    """Delete the data source (its evidence snapshots stay, keeping its name and URL)."""
    await session.delete(row)
    await session.commit()


async def list_all(session: AsyncSession, org_id: int) -> list[DataSource]:
    """The organization's data sources, oldest first."""
    rows = await session.scalars(
        select(DataSource).where(DataSource.org_id == org_id).order_by(DataSource.id)
    )
    return list(rows)


async def get(session: AsyncSession, org_id: int, pk: int) -> DataSource | None:
    """The organization's data source ``pk``, or None."""
    row = await session.get(DataSource, pk)
    return row if row is not None and row.org_id == org_id else None


def headers_of(row: DataSource, cipher: HeaderCipher) -> dict[str, str]:
    """The source's request headers, decrypted (:class:`SealedHeadersError` if they do not)."""
    return cipher.open(row.org_id, row.headers) if row.headers else {}


async def check_connection(
    row: DataSource, cipher: HeaderCipher, *, timeout: float = 5.0
) -> tuple[bool, str]:
    """``(ok, detail)``: whether the source answers an instant query (``vector(1)``) as a
    Prometheus HTTP API does."""
    try:
        headers = headers_of(row, cipher)
    except SealedHeadersError as exc:
        return False, f"{row.name}: {exc}"
    try:
        async with PrometheusClient(row.url, headers, timeout=timeout) as client:
            result = await client.query("vector(1)")
    except PrometheusError as exc:
        return False, f"{row.name} {exc}"
    if len(result) != 1:
        return False, f"{row.name} answered vector(1) with {len(result)} series instead of 1"
    return True, f"{row.name} answered the query vector(1) as a Prometheus HTTP API"
