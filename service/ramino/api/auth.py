"""Seat tokens: HS256 JWTs naming one seat of one game (and its player,
when the server knows players); creator tokens: HS256
JWTs naming the game their holder created (claim ``creator``, and its player
when the server knows players), which can only cancel it. Each kind carries
its own explicit type in the JWT header (``typ``: :data:`SEAT_TYP`,
:data:`CREATOR_TYP`), checked on verify; a seat token has no ``creator``
claim and a creator token no ``game`` nor ``seat`` claim, so neither passes
for the other, and a player token of the host's is refused if it carries
either type. Tokens made before the types existed (``typ`` ``JWT``) are
still told apart by their claims until they expire.

The secret comes from ``RAMINO_TOKEN_SECRET``, or the file named by
``RAMINO_TOKEN_SECRET_FILE``; without either, a random secret is made for the
life of the process (tokens then die with it: fine for local runs only, and
not for several replicas, which must share the secret).

Player tokens are the host's own: JWTs its auth issues, whose subject is the
player id, checked by a :class:`PlayerVerifier` (an HS256 secret, or an RSA or
EC public key for RS256 / ES256) when the server is configured with one. They
come in the ``ramino-player-token`` metadata. An anonymous caller proves who
it is to CreateGame and JoinGame with a key of its own making, in the
``ramino-caller-key`` metadata (hashed, never stored as sent).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt

from ramino import reasons as R
from ramino.api.errors import ApiError

ISSUER = "ramino"
SEAT_TYP = "ramino-seat+jwt"
CREATOR_TYP = "ramino-creator+jwt"
OUR_TYPS = (SEAT_TYP, CREATOR_TYP)
LEGACY_TYPS = ("JWT", None)
"""The ``typ`` of the tokens made before each kind had its own (PyJWT's
default), still told apart by their claims until they expire."""
DEFAULT_LIFETIME = 7 * 24 * 3600
PLAYER_TOKEN_KEY = "ramino-player-token"
CALLER_KEY = "ramino-caller-key"
MAX_PLAYER_ID = 128
CALLER_KEY_LENGTHS = (16, 128)
_VERIFIED_KEPT = 100_000


@dataclass(frozen=True, slots=True)
class SeatClaim:
    game_id: str
    seat: int
    player: str | None = None
    """The player the seat is bound to (servers that know players)."""


@dataclass(frozen=True, slots=True)
class CreatorClaim:
    game_id: str
    player: str | None = None
    """The player who created the game (servers that know players)."""


def configured_secret() -> bytes | None:
    """The seat-token secret the environment gives, if it gives one."""
    if value := os.environ.get("RAMINO_TOKEN_SECRET"):
        return value.encode()
    if path := os.environ.get("RAMINO_TOKEN_SECRET_FILE"):
        return Path(path).read_bytes().strip()
    return None


def load_secret() -> bytes:
    configured = configured_secret()
    return secrets.token_bytes(32) if configured is None else configured


def server_secret(token_secret: bytes) -> bytes:
    """The application's secret (the ids of people's tables, invite codes:
    ``ramino.app.games.lobby``), derived from the seat-token secret so that
    replicas sharing that one agree on it, and so that neither secret can
    be told from the other."""
    return hmac.new(token_secret, b"ramino: game ids and invite codes", hashlib.sha256).digest()


def _typ(token: str) -> object:
    """The ``typ`` of a token's header (None if it has none or is no JWT)."""
    try:
        return jwt.get_unverified_header(token).get("typ")
    except jwt.PyJWTError:
        return None


class TokenIssuer:
    def __init__(self, secret: bytes, lifetime: int = DEFAULT_LIFETIME) -> None:
        if len(secret) < 32:
            raise ValueError("the token secret must be at least 32 bytes")
        self._secret = secret
        self._lifetime = lifetime
        self._verified: dict[str, tuple[SeatClaim, float]] = {}

    def refuse_shared_secret(self, players: PlayerVerifier | None) -> None:
        """Refuses (ValueError) a player verifier with this issuer's secret."""
        refuse_shared_secret(self._secret, players)

    def issue(
        self, game_id: str, seat: int, now: float | None = None, player: str | None = None
    ) -> str:
        issued = int(time.time() if now is None else now)
        claims: dict[str, Any] = {
            "iss": ISSUER,
            "sub": f"games/{game_id}/seats/{seat}",
            "game": game_id,
            "seat": seat,
            "iat": issued,
            "exp": issued + self._lifetime,
        }
        if player is not None:
            claims["player"] = player
        return jwt.encode(claims, self._secret, algorithm="HS256", headers={"typ": SEAT_TYP})

    def issue_creator(
        self, game_id: str, now: float | None = None, player: str | None = None
    ) -> str:
        """A token that cancels ``game_id``, for whoever created it (bound to
        ``player``, on servers that know players)."""
        issued = int(time.time() if now is None else now)
        claims: dict[str, Any] = {
            "iss": ISSUER,
            "sub": f"games/{game_id}/creator",
            "creator": game_id,
            "iat": issued,
            "exp": issued + self._lifetime,
        }
        if player is not None:
            claims["player"] = player
        return jwt.encode(claims, self._secret, algorithm="HS256", headers={"typ": CREATOR_TYP})

    def verify_creator(self, token: str) -> CreatorClaim:
        """The game a creator token may cancel, and the player it is bound to."""
        try:
            decoded = jwt.decode_complete(
                token,
                self._secret,
                algorithms=["HS256"],
                issuer=ISSUER,
                options={"require": ["exp", "iat"]},
            )
        except jwt.ExpiredSignatureError:
            raise ApiError(R.TOKEN_EXPIRED, "the creator token has expired") from None
        except jwt.PyJWTError:
            raise ApiError(R.TOKEN_INVALID, "bad creator token") from None
        claims = decoded["payload"]
        game = claims.get("creator")
        if decoded["header"].get("typ") not in (CREATOR_TYP, *LEGACY_TYPS) or (
            "seat" in claims or "game" in claims
        ):
            raise ApiError(
                R.NOT_CREATOR,
                "a seat token cannot do this: only the creator token of CreateGame can",
            )
        player = claims.get("player")
        if not isinstance(game, str) or not (player is None or isinstance(player, str)):
            raise ApiError(R.TOKEN_INVALID, "bad creator token")
        return CreatorClaim(game, player)

    def verify(self, token: str) -> SeatClaim:
        """The seat a token acts for; verified tokens are remembered until
        they expire, so a seat's calls pay for the signature check once."""
        known = self._verified.get(token)
        if known is not None and known[1] > time.time():
            return known[0]
        claim, expires = self._verify(token)
        if len(self._verified) >= _VERIFIED_KEPT:
            self._verified.clear()
        self._verified[token] = (claim, expires)
        return claim

    def _verify(self, token: str) -> tuple[SeatClaim, float]:
        try:
            decoded = jwt.decode_complete(
                token,
                self._secret,
                algorithms=["HS256"],
                issuer=ISSUER,
                options={"require": ["exp", "iat", "game", "seat"]},
            )
        except jwt.ExpiredSignatureError:
            raise ApiError(R.TOKEN_EXPIRED, "the seat token has expired") from None
        except jwt.PyJWTError as e:
            raise ApiError(R.TOKEN_INVALID, f"bad seat token: {e}") from None
        claims = decoded["payload"]
        if decoded["header"].get("typ") not in (SEAT_TYP, *LEGACY_TYPS):
            raise ApiError(
                R.TOKEN_INVALID,
                "bad seat token: a token of another kind",
            )
        game, seat, player = claims["game"], claims["seat"], claims.get("player")
        if not isinstance(game, str) or not (player is None or isinstance(player, str)):
            raise ApiError(R.TOKEN_INVALID, "bad seat token")
        # bool is an int in Python: a claim of `true` is no seat.
        if type(seat) is not int or seat < 0:
            raise ApiError(
                R.BAD_SEAT_CLAIM,
                "the seat token's seat is not a seat number",
            )
        return SeatClaim(game, seat, player), float(claims["exp"])


class PlayerVerifier:
    """Checks the host's player tokens: JWTs signed with an HS256 secret, or
    with the private half of an RSA (RS256) or EC (ES256) public key; the
    subject is the player id. ``issuer`` and ``audience``, when given, must
    match the token's."""

    def __init__(
        self,
        key: Any,
        algorithms: list[str],
        issuer: str | None = None,
        audience: str | None = None,
    ) -> None:
        self._key = key
        self._algorithms = algorithms
        self._issuer = issuer
        self._audience = audience
        self._verified: dict[str, tuple[str, float]] = {}

    @classmethod
    def from_secret(
        cls, secret: bytes, issuer: str | None = None, audience: str | None = None
    ) -> PlayerVerifier:
        if len(secret) < 32:
            raise ValueError("the player token secret must be at least 32 bytes")
        return cls(secret, ["HS256"], issuer, audience)

    def shares(self, secret: bytes) -> bool:
        """Whether this verifier checks HS256 tokens with ``secret``."""
        return isinstance(self._key, bytes) and secrets.compare_digest(self._key, secret)

    @classmethod
    def from_public_key(
        cls, pem: bytes, issuer: str | None = None, audience: str | None = None
    ) -> PlayerVerifier:
        """From a PEM public key: RSA keys verify RS256, EC keys ES256."""
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        from cryptography.hazmat.primitives.serialization import load_pem_public_key

        key = load_pem_public_key(pem)
        if isinstance(key, rsa.RSAPublicKey):
            return cls(key, ["RS256"], issuer, audience)
        if isinstance(key, ec.EllipticCurvePublicKey):
            return cls(key, ["ES256"], issuer, audience)
        raise ValueError("the player token public key must be an RSA or EC key")

    def verify(self, token: str) -> str:
        """The player id of a valid player token (remembered until it
        expires); a seat or creator token of this server is none."""
        known = self._verified.get(token)
        if known is not None and known[1] > time.time():
            return known[0]
        if _typ(token) in OUR_TYPS:
            raise ApiError(
                R.PLAYER_TOKEN_INVALID,
                "a Ramino seat or creator token is no player token: send the host's player token",
            )
        try:
            claims = jwt.decode(
                token,
                self._key,
                algorithms=self._algorithms,
                issuer=self._issuer,
                audience=self._audience,
                options={"require": ["exp", "sub"], "verify_aud": self._audience is not None},
            )
        except jwt.ExpiredSignatureError:
            raise ApiError(
                R.PLAYER_TOKEN_EXPIRED,
                "the player token has expired",
            ) from None
        except jwt.PyJWTError as e:
            raise ApiError(
                R.PLAYER_TOKEN_INVALID,
                f"bad player token: {str(e)[:80]}",
            ) from None
        player = claims["sub"]
        if not isinstance(player, str) or not 0 < len(player) <= MAX_PLAYER_ID:
            raise ApiError(
                R.PLAYER_TOKEN_INVALID,
                f"a player token's subject is a player id of 1 to {MAX_PLAYER_ID} characters",
            )
        if len(self._verified) >= _VERIFIED_KEPT:
            self._verified.clear()
        self._verified[token] = (player, float(claims["exp"]))
        return player


def refuse_shared_secret(seat_secret: bytes | None, players: PlayerVerifier | None) -> None:
    """Refuses (ValueError) a player-token secret equal to the seat-token
    secret: a token signed with one would then pass for the other kind."""
    if seat_secret is not None and players is not None and players.shares(seat_secret):
        raise ValueError(
            "the player token secret must differ from the seat token secret "
            "(RAMINO_TOKEN_SECRET / RAMINO_TOKEN_SECRET_FILE): give each its own"
        )


def metadata_value(metadata: Iterable[tuple[str, str | bytes]] | None, key: str) -> str | None:
    """The value of metadata ``key``, if sent."""
    for k, value in metadata or ():
        if k == key:
            return value.decode() if isinstance(value, bytes) else value
    return None


def caller_scope(key: str) -> str:
    """The request-id scope of an anonymous caller's key (checked, hashed)."""
    low, high = CALLER_KEY_LENGTHS
    if not low <= len(key) <= high or not key.isascii() or not key.isprintable():
        raise ApiError(
            R.BAD_CALLER_KEY,
            f"the {CALLER_KEY} metadata is a random secret of {low} to {high} "
            "printable ASCII characters",
        )
    return "caller:" + hashlib.sha256(key.encode()).hexdigest()[:32]


def bearer(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` header, if any."""
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() != "bearer" or not token:
                raise ApiError(
                    R.TOKEN_INVALID,
                    'the authorization metadata must be "Bearer <seat token>"',
                )
            return token.strip()
    return None
