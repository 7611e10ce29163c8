"""``ramino-play``'s words (play/words.py): every language has every word,
Ukrainian counts in its three forms, Italian in its own, the language is chosen as the flag,
``RAMINO_LANG`` or the system's settings say, and the screen speaks it."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest
from ramino_client import (
    Discarded,
    DrewFromStock,
    End,
    GameStatus,
    Knocked,
    LayMelds,
    LayOff,
    RoundEnded,
    StockReshuffled,
    TurnPhase,
    play,
)
from ramino_client.play import commands, render, words
from ramino_client.play.commands import Refused, parse
from rich.markup import render as markup

from tests.client.test_play_units import (
    HAND,
    RUN_WITH_JOKER,
    SHOWN,
    TWO_JOKERS,
    legal,
    text,
    view,
)

HOLE = re.compile(r"\{(\w+)\}")


@pytest.fixture
def ukrainian() -> Iterator[None]:
    words.set_lang("uk")
    try:
        yield
    finally:
        words.set_lang("en")


@pytest.mark.parametrize("lang", words.LANGS)
def test_every_language_has_every_word_with_the_same_holes_and_valid_markup(lang: str) -> None:
    table = words.WORDS[lang]
    english = words.WORDS["en"]
    assert sorted(table) == sorted(english), f"{lang} lacks or adds words"
    for key, said in table.items():
        assert said.strip(), f"{lang} {key} is empty"
        assert sorted(HOLE.findall(said)) == sorted(HOLE.findall(english[key])), f"{lang} {key}"
        markup(said)  # rich reads it: no tag closed that was never opened


@pytest.mark.parametrize("lang", words.LANGS)
def test_every_counted_word_has_the_forms_its_language_counts_with(lang: str) -> None:
    counted = words.COUNTED[lang]
    assert sorted(counted) == sorted(words.COUNTED["en"])
    for key, forms in counted.items():
        counts = [*range(0, 1001), 1_000_000, 2_000_000]
        needed = {words.plural(lang, n) for n in counts} | {"other"}
        assert set(forms) == needed, f"{lang} {key}"
        for form in forms.values():
            assert HOLE.findall(form) == ["n"], f"{lang} {key}: {form}"


@pytest.mark.parametrize(
    ("n", "category", "cards"),
    [
        (1, "one", "1 карта"),
        (2, "few", "2 карти"),
        (5, "many", "5 карт"),
        (11, "many", "11 карт"),
        (21, "one", "21 карта"),
        (22, "few", "22 карти"),
        (25, "many", "25 карт"),
        (0, "many", "0 карт"),
        (4, "few", "4 карти"),
        (12, "many", "12 карт"),
        (14, "many", "14 карт"),
        (101, "one", "101 карта"),
        (111, "many", "111 карт"),
        (104, "few", "104 карти"),
    ],
)
def test_ukrainian_counts_in_three_forms(
    ukrainian: None, n: int, category: str, cards: str
) -> None:
    assert words.plural("uk", n) == category
    assert words.count("cards", n) == cards


def test_ukrainian_counts_points_players_and_jokers(ukrainian: None) -> None:
    assert [words.count("points", n) for n in (1, 2, 5, 21, 51)] == [
        "1 очко",
        "2 очки",
        "5 очок",
        "21 очко",
        "51 очко",
    ]
    assert [words.count("players", n) for n in (1, 3, 11)] == [
        "1 гравець",
        "3 гравці",
        "11 гравців",
    ]
    assert [words.count("jokers", n) for n in (2, 5)] == ["2 джокери", "5 джокерів"]


def test_italian_counts_one_and_other_and_a_million() -> None:
    words.set_lang("it")
    try:
        assert [words.count("cards", n) for n in (0, 1, 2, 21, 2_000_000)] == [
            "0 carte",
            "1 carta",
            "2 carte",
            "21 carte",
            "2000000 di carte",
        ]
    finally:
        words.set_lang("en")


def test_english_counts_one_and_other() -> None:
    assert [words.count("cards", n) for n in (0, 1, 2, 21)] == [
        "0 cards",
        "1 card",
        "2 cards",
        "21 cards",
    ]


@pytest.mark.parametrize(
    ("flag", "env", "lang"),
    [
        ("uk", {"LANG": "en_US.UTF-8"}, "uk"),
        ("en", {"RAMINO_LANG": "uk"}, "en"),
        (None, {"RAMINO_LANG": "uk", "LANG": "en_US.UTF-8"}, "uk"),
        (None, {"LANG": "uk_UA.UTF-8"}, "uk"),
        (None, {"LANGUAGE": "de:uk:en", "LANG": "de_DE.UTF-8"}, "uk"),
        (None, {"LC_ALL": "uk_UA.UTF-8", "LANG": "en_GB.UTF-8"}, "uk"),
        (None, {"LC_MESSAGES": "uk_UA@euro"}, "uk"),
        (None, {"LANG": "it_IT.UTF-8"}, "it"),
        (None, {"LANGUAGE": "fr:it", "LANG": "uk_UA.UTF-8"}, "it"),
        (None, {"LANG": "de_DE.UTF-8"}, "en"),
        (None, {"LC_ALL": "C", "LANG": "uk_UA.UTF-8"}, "en"),
        (None, {"LANG": "C.UTF-8"}, "en"),
        (None, {}, "en"),
    ],
)
def test_the_language_is_the_flag_then_ramino_lang_then_the_systems(
    flag: str | None, env: dict[str, str], lang: str
) -> None:
    assert words.choose(flag, env) == lang


def test_the_command_line_takes_lang() -> None:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    assert parser.parse_args(["--lang", "uk"]).lang == "uk"
    assert parser.parse_args(["--lang", "it"]).lang == "it"
    assert parser.parse_args([]).lang is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--lang", "fr"])


def test_the_board_speaks_ukrainian(ukrainian: None) -> None:
    seen = render.Seen(view(), 0, {c.id: c for c in HAND if c.id is not None})
    shown = text(*render.board(seen, None, fresh=set()))
    assert "Раунд 2 · ramino51 · games/g1" in shown
    assert "ann (ви)" in shown and "місце" in shown and "відкриття" in shown
    assert "ряд 24, Бот 2 (жадібний)" in shown
    assert "Скидання 8♦ (2 карти)    Прикуп 1 карта" in shown
    assert "Ваша рука (7 карт)" in shown
    assert "Your" not in shown and "Stock" not in shown


def test_hints_prompt_and_events_speak_ukrainian(ukrainian: None) -> None:
    seen = render.Seen(view(), 0, {c.id: c for c in HAND if c.id is not None})
    hints = text(render.hints(seen, legal(LayMelds(((1, 2, 3),), value=12)), SHOWN, full=False))
    assert "викласти: m 2 3 4  (3♥ 4♥ 5♥, 12 очок)" in hints
    assert render.prompt(view(), legal()).startswith("Гра: [cyan]m[/cyan] викласти")
    assert render.event_text(seen, DrewFromStock(version=8, seat=1, card=None)) == (
        "Бот 2 (жадібний) бере карту з прикупу."
    )
    assert render.event_text(seen, Discarded(version=9, seat=0, card=6)) == (
        "Ви скидаєте [bold red]K♦[/]."
    )
    knock = render.event_text(seen, Knocked(version=5, seat=1, discard=6, melds=(), deadwood=8))
    assert knock == "Бот 2 (жадібний) стукає (штрафних очок: 8): без комбінацій."
    reshuffled = render.event_text(
        seen, StockReshuffled(version=9, seat=None, rebuild=1, kept=1, stock_size=22)
    )
    assert reshuffled == "Скидання перетасовано в новий прикуп: 22 карти."
    ended = RoundEnded(
        version=30,
        round=2,
        ending="went_out",
        winner=1,
        closed_hand=False,
        scores=(45, 0),
        hands=((), ()),
    )
    assert "Раунд 2 завершено: Бот 2 (жадібний) позбувається всіх карт." in text(
        *render.round_scores(seen, ended, table=False)
    )
    mine = RoundEnded(
        version=30,
        round=2,
        ending="went_out",
        winner=0,
        closed_hand=False,
        scores=(0, 45),
        hands=((), ()),
    )
    assert "Раунд 2 завершено: ви позбулися всіх карт." in text(
        *render.round_scores(seen, mine, table=False)
    )
    assert "Команди" in render.help_text()


def test_what_is_refused_is_said_in_ukrainian(ukrainian: None) -> None:
    with pytest.raises(Refused, match="Невідома команда 'zz'"):
        parse("zz", SHOWN, None)
    with pytest.raises(Refused, match=re.escape("У вашій руці немає карти 9 (від 1 до 7).")):
        parse("x 9", SHOWN, None)
    with pytest.raises(Refused, match="У цій комбінації 2 джокери: скажіть, котрий, від 1 до 2"):
        commands.joker(TWO_JOKERS, None)
    shown = type(SHOWN)(SHOWN.hand, (RUN_WITH_JOKER,))
    assert parse("o 1 1 start", shown, None) == LayOff(SHOWN.hand[0].id or 0, 0, End.FIRST)


def test_the_board_speaks_italian() -> None:
    words.set_lang("it")
    try:
        seen = render.Seen(view(), 0, {c.id: c for c in HAND if c.id is not None})
        shown = text(*render.board(seen, None, fresh=set()))
        assert "Smazzata 2 · ramino51 · games/g1" in shown and "ann (tu)" in shown
        assert "scala 24, Bot 2 (avido)" in shown
        assert "Scarti 8♦ (2 carte)    Tallone 1 carta" in shown
        assert "La tua mano (7 carte)" in shown
    finally:
        words.set_lang("en")


def test_the_final_table_speaks_ukrainian(ukrainian: None) -> None:
    over = view(status=GameStatus.FINISHED, winners=(1,), turn=None, phase=TurnPhase.PLAY)
    final = text(*render.final(render.Seen(over, 0)))
    assert "Гру завершено" in final and "Партію виграє Бот 2 (жадібний)." in final
    mine = view(status=GameStatus.FINISHED, winners=(0,), turn=None)
    assert "Ви виграли партію." in text(*render.final(render.Seen(mine, 0)))
