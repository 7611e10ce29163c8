"""The deterministic shuffle: pinned vectors, and an independent pure-Python
ChaCha20 + Fisher-Yates written from RFC 8439 that must agree with the core."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import ramino

VECTORS = Path(__file__).parents[1] / "core_rs/ramino-core/tests/vectors/shuffle.txt"
MASK = 0xFFFFFFFF


def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & MASK


def _block(key: bytes, counter: int, nonce: bytes) -> list[int]:
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state += list(struct.unpack("<8I", key)) + [counter] + list(struct.unpack("<3I", nonce))
    w = state[:]

    def qr(a: int, b: int, c: int, d: int) -> None:
        w[a] = (w[a] + w[b]) & MASK
        w[d] = _rotl(w[d] ^ w[a], 16)
        w[c] = (w[c] + w[d]) & MASK
        w[b] = _rotl(w[b] ^ w[c], 12)
        w[a] = (w[a] + w[b]) & MASK
        w[d] = _rotl(w[d] ^ w[a], 8)
        w[c] = (w[c] + w[d]) & MASK
        w[b] = _rotl(w[b] ^ w[c], 7)

    for _ in range(10):
        qr(0, 4, 8, 12), qr(1, 5, 9, 13), qr(2, 6, 10, 14), qr(3, 7, 11, 15)
        qr(0, 5, 10, 15), qr(1, 6, 11, 12), qr(2, 7, 8, 13), qr(3, 4, 9, 14)
    return [(x + y) & MASK for x, y in zip(w, state, strict=True)]


def python_shuffle(seed: int, n: int) -> list[int]:
    key = seed.to_bytes(32, "little")
    words: list[int] = []
    counter = 0

    def word() -> int:
        nonlocal counter
        if not words:
            words.extend(reversed(_block(key, counter, bytes(12))))
            counter += 1
        return words.pop()

    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        while (x := word()) >= limit:
            pass
        j = x % bound
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _vectors() -> list[tuple[int, int, list[int]]]:
    out = []
    for line in VECTORS.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        seed, n, *perm = (int(x) for x in line.split())
        out.append((seed, n, perm))
    return out


def test_chacha20_block_matches_rfc8439() -> None:
    key = bytes(range(32))
    nonce = bytes.fromhex("000000090000004a00000000")
    block = _block(key, 1, nonce)
    assert block[0] == 0xE4E7F110 and block[15] == 0x4E3C50A2


@pytest.mark.parametrize(("seed", "n", "perm"), _vectors())
def test_shuffle_matches_pinned_vectors_and_independent_implementation(
    seed: int, n: int, perm: list[int]
) -> None:
    assert ramino.shuffle(seed, n) == perm
    assert python_shuffle(seed, n) == perm


def test_shuffle_is_a_permutation_and_depends_on_the_seed() -> None:
    a, b = ramino.shuffle(7, 108), ramino.shuffle(8, 108)
    assert sorted(a) == list(range(108)) and a != b
