"""Records the frozen Python engine's (``tests/engine_reference``) policy
answers as golden vectors, before the reference is retired.

The cases are ``test_kernel_binding.policy_cases`` (a hand of the seat on
turn every few steps of the binding's corpus of seeded games). Each line of
``tests/vectors/policies/policies.jsonl.gz`` holds one case's inputs (the
variant and overrides, the hand, the card taken this turn, a swapped joker
waiting for its meld, the melds of the hand's least deadwood and a knock made
of them) and the reference's answers to the policy functions that
``ramino._core`` now gives: ``discardable``, ``discard_scores`` (in their
order), ``best_discards``, ``undiscardable`` (the hand's first three cards),
``keep_one``, and ``joker_meld`` where the variant has jokers, ``hand_melds``,
``knock_deadwood`` and ``knock_unmatched`` where it knocks.

Run from the checkout: ``python -m tests.engine.record_policies [--write]``.
Without ``--write`` it checks that the file holds what the reference answers
now (exit 1 if not); the file is gzip with mtime 0, so the same answers give
the same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

import ramino

from tests.engine.test_kernel_binding import policy_cases
from tests.engine_reference import hint as engine_hint
from tests.engine_reference.commands import Knock
from tests.engine_reference.context import rules_for
from tests.engine_reference.moves import hand_melds
from tests.engine_reference.rules import joker_meld, knock_deadwood, undiscardable

PATH = Path(__file__).resolve().parents[1] / "vectors" / "policies" / "policies.jsonl.gz"


def record() -> list[dict[str, Any]]:
    """Every case's inputs and the reference's answers, as plain data."""
    out: list[dict[str, Any]] = []
    for p, state, seat in policy_cases():
        rules = rules_for(p.variant, p.overrides)
        v = rules.variant
        hand = list(state.seats[seat].hand)
        taken, pending = state.taken, state.pending_joker
        names = [rules.names[c] for c in hand]
        discardable = engine_hint.discardable(rules, hand, taken, pending)
        allowed = discardable or hand
        melds = ramino.min_deadwood(names, v).melds
        case: dict[str, Any] = {
            "variant": p.variant,
            "overrides": p.overrides,
            "hand": hand,
            "taken": taken,
            "pending_joker": pending,
            "discardable": discardable,
            "discard_scores": list(engine_hint.discard_scores(rules, hand, allowed).items()),
            "best_discards": engine_hint.best_discards(rules, hand, allowed),
            "undiscardable": [[c, undiscardable(rules, taken, c)] for c in hand[:3]],
            "melds": melds,
            "keep_one": engine_hint.keep_one(melds, v),
        }
        if v.jokers:
            found = joker_meld(rules, taken, hand)
            case["joker_meld"] = None if found is None else list(found)
        if v.knocking:
            case["hand_melds"] = hand_melds(names, v)
            if len(names) > 1:
                case["knock_deadwood"] = knock_deadwood(names, rules)
            ids = [[hand[names.index(n)] for n in m] for m in melds]
            knock = Knock(hand[0], tuple(tuple(m) for m in ids if hand[0] not in m))
            case["knock"] = {"discard": knock.discard, "melds": [list(m) for m in knock.melds]}
            case["knock_unmatched"] = engine_hint.knock_unmatched(rules, hand, knock)
        out.append(case)
    return out


def encode(cases: list[dict[str, Any]]) -> bytes:
    """The file's bytes: one JSON line a case, gzip with mtime 0."""
    lines = "".join(json.dumps(c, separators=(",", ":")) + "\n" for c in cases)
    return gzip.compress(lines.encode(), compresslevel=9, mtime=0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {PATH.name}")
    args = parser.parse_args()
    cases = record()
    data = encode(cases)
    if args.write:
        PATH.parent.mkdir(parents=True, exist_ok=True)
        PATH.write_bytes(data)
        print(f"wrote {len(cases)} cases to {PATH} ({len(data):,} bytes)")
        return 0
    same = PATH.exists() and PATH.read_bytes() == data
    print(f"{PATH}: {'the reference answers the same' if same else 'DIFFERS'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
