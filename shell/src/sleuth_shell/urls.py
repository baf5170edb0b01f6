"""Public links (``url`` fields) to the server-rendered detail pages, per DESIGN.md section 4."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import quote

__all__ = [
    "alert_responder_url",
    "digest_run_url",
    "digest_url",
    "ingest_url",
    "interaction_url",
    "investigation_url",
]


#: How many distinct links the process keeps built (a link is ~100 bytes).
URL_CACHE_SIZE = 4096


@lru_cache(maxsize=URL_CACHE_SIZE)
def _join(public_url: str, *parts: str) -> str:
    # A pure function of its strings, memoised: the hottest read (an agent's GET) builds its
    # agent's link on every request, and ``quote`` costs more than the lookup.
    return public_url.rstrip("/") + "".join("/" + quote(part, safe="=") for part in parts)


def alert_responder_url(public_url: str, global_id: str) -> str:
    """``{public_url}/alert-responders/{id}``."""
    return _join(public_url, "alert-responders", global_id)


def investigation_url(public_url: str, global_id: str) -> str:
    """``{public_url}/investigations/{id}``."""
    return _join(public_url, "investigations", global_id)


def digest_url(public_url: str, global_id: str) -> str:
    """``{public_url}/digests/{id}``."""
    return _join(public_url, "digests", global_id)


def digest_run_url(public_url: str, digest_global_id: str, run_global_id: str) -> str:
    """``{public_url}/digests/{id}/runs/{run_id}``."""
    return _join(public_url, "digests", digest_global_id, "runs", run_global_id)


def interaction_url(public_url: str, interaction_id: str) -> str:
    """``{public_url}/interactions/{id}``."""
    return _join(public_url, "interactions", interaction_id)


def ingest_url(public_url: str, subscription_type: str, remote_id: str) -> str:
    """``{public_url}/api/v1/webhooks/{type}/{remote_id}``: where a provider posts its alerts."""
    return _join(public_url, "api", "v1", "webhooks", subscription_type, remote_id)
