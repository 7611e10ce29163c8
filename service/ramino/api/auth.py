"""Seat tokens: HS256 JWTs naming one seat of one game; creator tokens: HS256
JWTs naming the game their holder created (claim ``creator``), which can only
cancel it. A token is one or the other: a seat token has no ``creator`` claim
and a creator token no ``game`` nor ``seat`` claim, so neither passes for the
other.

The secret comes from ``RAMINO_TOKEN_SECRET``, or the file named by
``RAMINO_TOKEN_SECRET_FILE``; without either, a random secret is made for the
life of the process (tokens then die with it: fine for local runs only, and
not for several replicas, which must share the secret).
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import grpc
import jwt

from ramino.api.errors import ApiError

ISSUER = "ramino"
DEFAULT_LIFETIME = 7 * 24 * 3600


@dataclass(frozen=True, slots=True)
class SeatClaim:
    game_id: str
    seat: int


def load_secret() -> bytes:
    if value := os.environ.get("RAMINO_TOKEN_SECRET"):
        return value.encode()
    if path := os.environ.get("RAMINO_TOKEN_SECRET_FILE"):
        return Path(path).read_bytes().strip()
    return secrets.token_bytes(32)


class TokenIssuer:
    def __init__(self, secret: bytes, lifetime: int = DEFAULT_LIFETIME) -> None:
        if len(secret) < 32:
            raise ValueError("the token secret must be at least 32 bytes")
        self._secret = secret
        self._lifetime = lifetime
        self._verified: dict[str, tuple[SeatClaim, float]] = {}

    def issue(self, game_id: str, seat: int, now: float | None = None) -> str:
        issued = int(time.time() if now is None else now)
        claims = {
            "iss": ISSUER,
            "sub": f"games/{game_id}/seats/{seat}",
            "game": game_id,
            "seat": seat,
            "iat": issued,
            "exp": issued + self._lifetime,
        }
        return jwt.encode(claims, self._secret, algorithm="HS256")

    def issue_creator(self, game_id: str, now: float | None = None) -> str:
        """A token that cancels ``game_id``, for whoever created it."""
        issued = int(time.time() if now is None else now)
        claims = {
            "iss": ISSUER,
            "sub": f"games/{game_id}/creator",
            "creator": game_id,
            "iat": issued,
            "exp": issued + self._lifetime,
        }
        return jwt.encode(claims, self._secret, algorithm="HS256")

    def verify_creator(self, token: str) -> str:
        """The game a creator token may cancel."""
        try:
            claims = jwt.decode(
                token,
                self._secret,
                algorithms=["HS256"],
                issuer=ISSUER,
                options={"require": ["exp", "iat"]},
            )
        except jwt.ExpiredSignatureError:
            raise ApiError(
                grpc.StatusCode.UNAUTHENTICATED, "TOKEN_EXPIRED", "the creator token has expired"
            ) from None
        except jwt.PyJWTError:
            raise ApiError(
                grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID", "bad creator token"
            ) from None
        game = claims.get("creator")
        if "seat" in claims or "game" in claims:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                "NOT_CREATOR",
                "a seat token cannot do this: only the creator token of CreateGame can",
            )
        if not isinstance(game, str):
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID", "bad creator token")
        return game

    def verify(self, token: str) -> SeatClaim:
        """The seat a token acts for; verified tokens are remembered until
        they expire, so a seat's calls pay for the signature check once."""
        known = self._verified.get(token)
        if known is not None and known[1] > time.time():
            return known[0]
        claim, expires = self._verify(token)
        if len(self._verified) >= 100_000:
            self._verified.clear()
        self._verified[token] = (claim, expires)
        return claim

    def _verify(self, token: str) -> tuple[SeatClaim, float]:
        try:
            claims = jwt.decode(
                token,
                self._secret,
                algorithms=["HS256"],
                issuer=ISSUER,
                options={"require": ["exp", "iat", "game", "seat"]},
            )
        except jwt.ExpiredSignatureError:
            raise ApiError(
                grpc.StatusCode.UNAUTHENTICATED, "TOKEN_EXPIRED", "the seat token has expired"
            ) from None
        except jwt.PyJWTError as e:
            raise ApiError(
                grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID", f"bad seat token: {e}"
            ) from None
        if not isinstance(claims["game"], str) or not isinstance(claims["seat"], int):
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID", "bad seat token")
        return SeatClaim(claims["game"], claims["seat"]), float(claims["exp"])


def bearer(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` header, if any."""
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() != "bearer" or not token:
                raise ApiError(
                    grpc.StatusCode.UNAUTHENTICATED,
                    "TOKEN_INVALID",
                    'the authorization metadata must be "Bearer <seat token>"',
                )
            return token.strip()
    return None
