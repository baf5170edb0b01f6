"""Data-source request headers encrypted at rest.

The key is derived from the server secret (:mod:`sleuth_shell.db.server_secrets`) with HKDF-SHA256
and a context of its own, so it is never the cookie-signing key; the headers' JSON is sealed with
AES-256-GCM under a fresh 96-bit nonce, with the organization's id as associated data (a
ciphertext copied to another organization's row does not open). Both from ``cryptography``.

Stored form: ``v1.`` + URL-safe base64 of ``nonce || ciphertext-with-tag``.

>>> cipher = HeaderCipher("s" * 48)
>>> sealed = cipher.seal(7, {"Authorization": "Bearer abc"})
>>> sealed.startswith("v1.") and "abc" not in sealed
True
>>> cipher.open(7, sealed)
{'Authorization': 'Bearer abc'}
>>> try:
...     cipher.open(8, sealed)
... except SealedHeadersError as exc:
...     print(str(exc)[:41])
the stored headers cannot be decrypted (t
"""

from __future__ import annotations

import base64
import binascii
import json
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = ["HeaderCipher", "SealedHeadersError"]

_CONTEXT = b"sleuth data source headers v1"
_PREFIX = "v1."
_NONCE_BYTES = 12


class SealedHeadersError(Exception):
    """Stored headers that do not decrypt with the current key."""


def _aad(org_id: int) -> bytes:
    return f"sleuth data source headers of organization {org_id}".encode()


class HeaderCipher:
    """Seals and opens one organization's data-source headers with the key derived from
    ``server_secret``."""

    def __init__(self, server_secret: str) -> None:
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_CONTEXT).derive(
            server_secret.encode("utf-8")
        )
        self._aead = AESGCM(key)

    def seal(self, org_id: int, headers: dict[str, str]) -> str:
        """The stored form of ``headers``."""
        nonce = os.urandom(_NONCE_BYTES)
        plain = json.dumps(headers, sort_keys=True, ensure_ascii=False).encode("utf-8")
        sealed = self._aead.encrypt(nonce, plain, _aad(org_id))
        return _PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode("ascii")

    def open(self, org_id: int, stored: str) -> dict[str, str]:
        """The headers inside ``stored``; :class:`SealedHeadersError` when they do not decrypt."""
        try:
            if not stored.startswith(_PREFIX):
                raise ValueError("unknown format")
            raw = base64.urlsafe_b64decode(stored[len(_PREFIX) :].encode("ascii"))
            plain = self._aead.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], _aad(org_id))
            value = json.loads(plain)
        except (InvalidTag, ValueError, binascii.Error, UnicodeError):
            raise SealedHeadersError(
                "the stored headers cannot be decrypted (the server secret changed since they "
                "were set); set them again"
            ) from None
        if not isinstance(value, dict):
            raise SealedHeadersError("the stored headers are not a JSON object")
        return {str(k): str(v) for k, v in value.items()}
