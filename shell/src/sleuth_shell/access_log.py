"""The access log of ``sleuth serve``: uvicorn's, with secrets in query strings redacted.

A webhook delivery may authenticate with ``?token=<secret>`` (the subscription's secret), so
the request line uvicorn logs would carry the secret in clear. :class:`RedactQuerySecrets` (a
logging filter on ``uvicorn.access``) replaces the value of every query parameter named in
:data:`SECRET_PARAMETERS` before the line is formatted; :func:`serving_log_config` is uvicorn's
logging configuration with that filter on the access handler.

>>> redact_query_secrets("/api/v1/webhooks/PROVIDER_B/wh_1?token=s3cret&x=1")
'/api/v1/webhooks/PROVIDER_B/wh_1?token=[redacted]&x=1'
>>> redact_query_secrets("/health")
'/health'
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

__all__ = [
    "REDACTED",
    "SECRET_PARAMETERS",
    "RedactQuerySecrets",
    "redact_query_secrets",
    "serving_log_config",
]

#: Query parameters whose values never reach the log (compared case-insensitively).
SECRET_PARAMETERS = ("token", "api_key", "key", "secret", "signature", "password")
REDACTED = "[redacted]"

_SECRET = re.compile(r"([?&;](?:" + "|".join(SECRET_PARAMETERS) + r")=)[^&;#\s]*", re.IGNORECASE)


def redact_query_secrets(target: str) -> str:
    """``target`` (a path with its query string) with the secret parameters' values replaced."""
    if "?" not in target:
        return target
    return _SECRET.sub(lambda match: match.group(1) + REDACTED, target)


class RedactQuerySecrets(logging.Filter):
    """Redact the request target of uvicorn's access records (``args``: client address,
    method, full path, HTTP version, status code)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], redact_query_secrets(args[2]), *args[3:])
        return True


def serving_log_config(base: dict[str, Any]) -> dict[str, Any]:
    """``base`` (uvicorn's ``LOGGING_CONFIG``) with :class:`RedactQuerySecrets` on its access
    handler."""
    config = copy.deepcopy(base)
    config.setdefault("filters", {})["redact_query_secrets"] = {
        "()": f"{__name__}.RedactQuerySecrets"
    }
    config["handlers"]["access"].setdefault("filters", []).append("redact_query_secrets")
    return config
