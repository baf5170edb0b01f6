"""What a user pastes into the MCP tools: :func:`parse_reference` turns a Sleuth page URL, an
API URL or a bare ID into a :class:`Reference`. The reads themselves are the features' query
modules (``interactions``, ``investigations``, ``digests``), as for the API and the pages.

Every query is scoped to the caller's organization, so another organization's ID reads exactly like
an unknown one. :func:`parse_reference` turns what a user pastes (a Sleuth page URL, an API URL or
a bare ID) into a :class:`Reference` without touching the database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, urlsplit

from sleuth_core.ids import decode_global_id
from sleuth_shell.domain import MAX_PK

__all__ = [
    "ALERT_RESPONDER_TYPE",
    "DIGEST_RUN_TYPE",
    "DIGEST_TYPE",
    "INVESTIGATION_TYPE",
    "MAX_PK",
    "Reference",
    "parse_alert_responder_id",
    "parse_reference",
]

INVESTIGATION_TYPE = "Investigation"
DIGEST_TYPE = "Digest"
DIGEST_RUN_TYPE = "DigestRun"
ALERT_RESPONDER_TYPE = "AlertResponder"
#: Longest reference looked at (a URL or ID longer than this names nothing Sleuth serves).
MAX_REFERENCE_LENGTH = 2048

_INTERACTION_ID = re.compile(r"^[0-9A-Za-z-]{1,36}$")

Kind = Literal["interaction", "investigation", "digest_run"]


@dataclass(frozen=True)
class Reference:
    """What a URL or ID names: an interaction (``key`` is its ID), an investigation or a digest run
    (``key`` is the primary key; ``digest_pk`` the digest the URL put the run under, if any)."""

    kind: Kind
    key: str | int
    digest_pk: int | None = None


def _pk(value: str, type_name: str) -> int | None:
    pk = decode_global_id(value, type_name)
    return pk if pk is not None and pk <= MAX_PK else None


def _from_id(value: str) -> Reference | None:
    """A bare ID: an investigation or digest run Global ID, else an interaction ID."""
    pk = _pk(value, INVESTIGATION_TYPE)
    if pk is not None:
        return Reference("investigation", pk)
    pk = _pk(value, DIGEST_RUN_TYPE)
    if pk is not None:
        return Reference("digest_run", pk)
    if _INTERACTION_ID.match(value):
        return Reference("interaction", value)
    return None


def _from_path(path: str) -> Reference | None:
    """A page path (``/interactions/{id}``, ``/investigations/{id}``,
    ``/digests/{id}/runs/{run_id}``), with or without an ``/api/v1`` prefix or a mount prefix."""
    parts = [unquote(part) for part in path.split("/") if part]
    for i, part in enumerate(parts):
        rest = parts[i + 1 :]
        if part == "interactions" and len(rest) == 1 and _INTERACTION_ID.match(rest[0]):
            return Reference("interaction", rest[0])
        if part == "investigations" and len(rest) == 1:
            pk = _pk(rest[0], INVESTIGATION_TYPE)
            return Reference("investigation", pk) if pk is not None else None
        if part == "digests" and len(rest) == 3 and rest[1] == "runs":
            digest_pk = _pk(rest[0], DIGEST_TYPE)
            run_pk = _pk(rest[2], DIGEST_RUN_TYPE)
            if digest_pk is None or run_pk is None:
                return None
            return Reference("digest_run", run_pk, digest_pk)
    return None


def parse_alert_responder_id(value: str) -> int | None:
    """The primary key inside alert agent Global ID ``value``, or None."""
    return _pk(value.strip(), ALERT_RESPONDER_TYPE)


def parse_reference(value: str) -> Reference | None:
    """What ``value`` (a Sleuth URL or an ID) names, or None when it names nothing Sleuth serves."""
    value = value.strip()
    if not value or len(value) > MAX_REFERENCE_LENGTH or any(c.isspace() for c in value):
        return None
    if "://" in value:
        try:
            parts = urlsplit(value)
        except ValueError:
            return None
        if parts.scheme not in ("http", "https"):
            return None
        return _from_path(parts.path)
    if value.startswith("/"):
        return _from_path(urlsplit(value).path)
    return _from_id(value)
