"""The secrets of triggers: tokens (only their SHA-256 is stored), webhook keys, and the
HMAC-SHA256 signature a webhook call carries:

    X-OtterWeb-Timestamp: 1767225600
    X-OtterWeb-Signature: sha256=<hex of HMAC-SHA256(key, "1767225600." + body)>
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_PREFIX = "otwt_"  # lets secret scanners spot a trigger token
SIGNATURE_PREFIX = "sha256="


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_key() -> str:
    return secrets.token_hex(32)


def digest(token: str) -> str:
    """What is stored of a token: a token is 256 random bits, so one round of SHA-256 is as good
    as a password hash, and fast to check."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str | None, stored_digest: str) -> bool:
    if not token or not stored_digest:
        return False
    return hmac.compare_digest(digest(token), stored_digest)


def signature(key: str, timestamp: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of "<timestamp>.<body>" with ``key``."""
    return hmac.new(key.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def signature_header(key: str, timestamp: str, body: bytes) -> str:
    """X-OtterWeb-Signature's value for ``body`` sent at ``timestamp``."""
    return SIGNATURE_PREFIX + signature(key, timestamp, body)


def signature_matches(header: str | None, key: str, timestamp: str, body: bytes) -> bool:
    if not header or not header.startswith(SIGNATURE_PREFIX):
        return False
    return hmac.compare_digest(
        header[len(SIGNATURE_PREFIX) :].strip().lower(), signature(key, timestamp, body)
    )
