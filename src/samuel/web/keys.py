"""API keys for the ``/v1`` API (``samuel serve --api-keys FILE``), each with its own rate limit.

The file holds a key a line, optionally followed by the requests a minute it may make
(:data:`DEFAULT_PER_MINUTE` if not given); ``#`` starts a comment. A key is 16 to 128 letters,
digits, ``-`` or ``_``. A request names its key as ``Authorization: Bearer KEY`` or
``X-API-Key: KEY``; without a known key it gets a 401, past its rate a 429 with
``Retry-After``. Keys are kept as their SHA-256 only, so a lookup takes the same time whatever
the key (no timing tells how much of a guess was right).

The rate is a token bucket: a key may make up to its minute's requests at once, then one
each ``60 / rate`` seconds.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import threading
import time
from dataclasses import dataclass

from samuel.errors import CommandError
from samuel.files import read_text

DEFAULT_PER_MINUTE = 60
MAX_PER_MINUTE = 1_000_000
MAX_KEYS_BYTES = 1 << 20
_KEY = re.compile(r"[A-Za-z0-9_-]{16,128}")


class KeyRefused(PermissionError):
    """No key, or one this server does not know (a 401)."""


class RateLimited(RuntimeError):
    """The key made more requests than its rate allows (a 429)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class _Bucket:
    per_minute: int
    tokens: float
    updated: float


class ApiKeys:
    """The keys and their buckets; thread-safe."""

    def __init__(self, rates: dict[str, int], clock=time.monotonic) -> None:
        now = clock()
        self._buckets = {
            _digest(key): _Bucket(rate, float(rate), now) for key, rate in rates.items()
        }
        self._clock = clock
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._buckets)

    @classmethod
    def load(cls, path: str | os.PathLike) -> ApiKeys:
        """The keys of the file ``path``; raises :class:`CommandError` saying which line is
        wrong."""
        try:
            text = read_text(path, "API keys file", MAX_KEYS_BYTES)
        except OSError as error:
            raise CommandError(f"--api-keys: {error}") from None
        rates: dict[str, int] = {}
        for number, line in enumerate(text.splitlines(), 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            where = f"--api-keys {os.fspath(path)}, line {number}"
            if len(words) > 2 or not _KEY.fullmatch(words[0]):
                raise CommandError(
                    f"{where}: a line is a key (16 to 128 letters, digits, - or _) and "
                    "optionally its requests a minute"
                )
            rate = DEFAULT_PER_MINUTE
            if len(words) == 2:
                if not words[1].isdigit() or not 1 <= int(words[1]) <= MAX_PER_MINUTE:
                    raise CommandError(
                        f"{where}: the rate is 1 to {MAX_PER_MINUTE} requests a minute, "
                        f"not {words[1]!r}"
                    )
                rate = int(words[1])
            if words[0] in rates:
                raise CommandError(f"{where}: the key is given twice")
            rates[words[0]] = rate
        if not rates:
            raise CommandError(f"--api-keys {os.fspath(path)} holds no key")
        return cls(rates)

    def admit(self, key: str | None) -> None:
        """Let a request with ``key`` through, or raise :class:`KeyRefused` /
        :class:`RateLimited`."""
        if not key:
            raise KeyRefused(
                "this API needs a key: send 'Authorization: Bearer KEY' or 'X-API-Key: KEY'"
            )
        bucket = self._buckets.get(_digest(key))
        if bucket is None:
            raise KeyRefused("this API key is not one this server knows")
        with self._lock:
            now = self._clock()
            refill = (now - bucket.updated) * bucket.per_minute / 60.0
            bucket.tokens = min(float(bucket.per_minute), bucket.tokens + refill)
            bucket.updated = now
            if bucket.tokens < 1.0:
                wait = (1.0 - bucket.tokens) * 60.0 / bucket.per_minute
                raise RateLimited(
                    f"this key may make {bucket.per_minute} requests a minute; try again in "
                    f"{wait:.1f} s",
                    max(1, math.ceil(wait)),
                )
            bucket.tokens -= 1.0


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def request_key(headers) -> str | None:
    """The key a request names (``Authorization: Bearer KEY`` or ``X-API-Key``), or None."""
    given = headers.get("x-api-key")
    if given:
        return given.strip()
    authorization = headers.get("authorization", "")
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None
