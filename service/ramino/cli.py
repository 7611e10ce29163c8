"""The ``ramino`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

import ramino


def _meld_rows(melds: list[list[str]], variant: ramino.Variant) -> list[tuple[str, str, str]]:
    rows = []
    for cards in melds:
        meld = ramino.validate_meld(cards, variant)
        jokers = ", ".join(f"JK={'/'.join(j.stands_for)}" for j in meld.jokers)
        rows.append(
            (" ".join(meld.cards), f"{meld.kind}{' ' + jokers if jokers else ''}", str(meld.value))
        )
    return rows


def _analysis(hand: list[str], variant: ramino.Variant) -> dict[str, Any]:
    opening = ramino.best_opening(hand, variant)
    deadwood = ramino.min_deadwood(hand, variant)

    def melds(ms: list[list[str]]) -> list[dict[str, Any]]:
        out = []
        for cards in ms:
            m = ramino.validate_meld(cards, variant)
            out.append(
                {
                    "cards": m.cards,
                    "kind": m.kind,
                    "value": m.value,
                    "jokers": [{"index": j.index, "stands_for": j.stands_for} for j in m.jokers],
                }
            )
        return out

    return {
        "hand": hand,
        "variant": variant.to_dict(),
        "penalty": ramino.penalty(hand, variant),
        "best_opening": None
        if opening is None
        else {"value": opening.value, "melds": melds(opening.melds)},
        "min_deadwood": {
            "value": deadwood.value,
            "melds": melds(deadwood.melds),
            "deadwood": deadwood.deadwood,
        },
    }


def _print_analysis(hand: list[str], variant: ramino.Variant, console: Console) -> None:
    opening = ramino.best_opening(hand, variant)
    deadwood = ramino.min_deadwood(hand, variant)
    console.print(
        f"[bold]{variant.name}[/bold] hand of {len(hand)}: {' '.join(hand)}"
        f"  (penalty if caught: {ramino.penalty(hand, variant)})"
    )
    table = Table(title="Best opening", title_justify="left")
    for col in ("meld", "kind", "value"):
        table.add_column(col, justify="right" if col == "value" else "left")
    if opening is None:
        rule = f"{variant.open_threshold} points"
        if variant.open_requires_pure_run:
            rule += " with a pure run"
        console.print(f"Best opening: none (this hand cannot open: {rule} needed)")
    else:
        for row in _meld_rows(opening.melds, variant):
            table.add_row(*row)
        table.add_section()
        table.add_row("total", "", str(opening.value))
        console.print(table)
    table = Table(title="Minimum deadwood", title_justify="left")
    for col in ("meld", "kind", "value"):
        table.add_column(col, justify="right" if col == "value" else "left")
    for row in _meld_rows(deadwood.melds, variant):
        table.add_row(*row)
    table.add_section()
    table.add_row(" ".join(deadwood.deadwood) or "-", "deadwood", str(deadwood.value))
    console.print(table)


def _variant(args: argparse.Namespace) -> ramino.Variant:
    overrides: dict[str, Any] = {}
    for item in args.set or []:
        key, _, raw = item.partition("=")
        try:
            overrides[key] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key] = raw
    return ramino.Variant(args.variant, **overrides)


def _analyze(args: argparse.Namespace) -> int:
    variant = _variant(args)
    hand = [str(c) for c in ramino.parse_cards(args.hand)]
    if args.json:
        print(json.dumps(_analysis(hand, variant), indent=2))
    else:
        _print_analysis(hand, variant, Console())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ramino", description="Ramino rummy engine")
    sub = parser.add_subparsers(dest="command", required=True)
    analyze = sub.add_parser("analyze", help="best opening and minimum deadwood of a hand")
    analyze.add_argument("hand", help='cards in notation, e.g. "AS 2S 3S QH KH AH JK TD TC"')
    analyze.add_argument("--variant", default="ramino51", choices=ramino.PRESETS)
    analyze.add_argument(
        "--set",
        action="append",
        metavar="PARAM=VALUE",
        help="override a variant parameter (JSON value), e.g. --set ace_high=false",
    )
    analyze.add_argument("--json", action="store_true", help="print JSON for machines")
    analyze.set_defaults(func=_analyze)
    from ramino import gateway, serve, simulate
    from ramino.config import command as config

    serve.add_parser(sub)
    config.add_parser(sub)
    gateway.add_parser(sub)
    _add_play(sub)
    simulate.add_parser(sub)
    return parser


PLAY_MISSING = (
    "ramino play is the terminal client of the Python SDK: install it with "
    "pip install 'ramino-client[play]' (clients/python in the repository), then run "
    "ramino play or ramino-play"
)


def _add_play(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``ramino play`` runs ``ramino-play`` of ramino-client[play] when it is
    installed beside the server; the server does not depend on it."""
    try:
        from ramino_client import play
    except ImportError:  # no ramino-client, or without its play extra (rich)
        p = sub.add_parser("play", help="play in the terminal (needs ramino-client[play])")
        p.add_argument("args", nargs=argparse.REMAINDER)
        p.set_defaults(func=_play_missing)
        return
    play.add_parser(sub)


def _play_missing(args: argparse.Namespace) -> int:
    print(PLAY_MISSING, file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result: int = args.func(args)
    except ramino.RaminoError as e:
        print(f"ramino: {e} [{e.reason}]", file=sys.stderr)
        return 2
    return result
