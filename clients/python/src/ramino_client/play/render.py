"""What ``ramino-play`` shows, as rich markup and renderables: pure functions
of what the person's screen knows (the latest view, their seat, the cards
seen so far), printed by the session; no server, no terminal. The words are
the current language's (:mod:`.words`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rich.console import RenderableType
from rich.markup import escape
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from ramino_client.events import (
    Discarded,
    DiscardPileTurnedOver,
    DrewFromStock,
    Event,
    GameEnded,
    JokerSwapped,
    Knocked,
    LaidOff,
    LayoutAccepted,
    MatchEnded,
    MeldsLaid,
    PassedUpcard,
    Resigned,
    RoundEnded,
    RoundStarted,
    SeatJoined,
    SeatReclaimed,
    SeatTimedOut,
    StockReshuffled,
    TookDiscard,
)
from ramino_client.models import (
    Card,
    End,
    GameStatus,
    GameView,
    Meld,
    ScorePart,
    Suit,
    TurnPhase,
    sort_cards,
)
from ramino_client.moves import LegalMoves
from ramino_client.play.commands import Numbering
from ramino_client.play.words import count, level, t


def help_text() -> str:
    """The commands, as ``?`` lists them."""
    return t("help")


_SUIT_STYLE = {Suit.HEARTS: "bold red", Suit.DIAMONDS: "bold red"}


@dataclass(frozen=True)
class Seen:
    """What the person's screen knows."""

    view: GameView
    me: int
    """The person's seat."""
    cards: Mapping[int, Card] = field(default_factory=dict)
    """Every card seen so far, by id (events name cards by id)."""


def event_cards(e: Event) -> list[int]:
    """The cards an event names (by id)."""
    match e:
        case DrewFromStock(card=drawn) if drawn is not None:
            return [drawn]
        case TookDiscard(card=c) | Discarded(card=c) | LaidOff(card=c):
            return [c]
        case JokerSwapped(card=given, joker=joker):
            return [given, joker]
        case MeldsLaid(melds=melds):
            return [c for m in melds for c in m]
    return []


def numbering(view: GameView) -> Numbering:
    """The numbers the board gives the hand's cards and the table's melds."""
    return Numbering(tuple(view.sorted_hand()), tuple(view.table))


def player(seen: Seen, seat: int | None) -> str:
    if seat is None:
        return "?"
    if seat == seen.me:
        return t("you")
    return seat_name(seen.view, seat)


def seat_name(view: GameView, seat: int) -> str:
    """A seat's name as the screen shows it, escaped: a bot's in words
    ("Greedy bot 2", "Бот 2 (жадібний)"), a person's own, an empty seat's number."""
    s = view.seats[seat]
    if s.bot is not None:
        return capital(t("seat.botName", level=level(s.bot.value), n=seat + 1))
    if s.player_name:
        return escape(s.player_name)
    return t("seat.default", n=seat)


def card(seen: Seen, card_id: int | None) -> str:
    c = seen.cards.get(card_id) if card_id is not None else None
    return styled(c) if c is not None else t("aCard")


def cards(seen: Seen, ids: Sequence[int]) -> str:
    return " ".join(card(seen, i) for i in ids)


def intro(seen: Seen) -> str:
    v = seen.view
    return t(
        "intro",
        name=seat_name(v, seen.me),
        seat=seen.me,
        game=v.name,
        variant=v.variant.name,
    )


def waiting(seen: Seen) -> str | None:
    """What the game waits for, when it is not the person."""
    v = seen.view
    if v.status is GameStatus.WAITING:
        open_seats = sum(1 for s in v.seats if not s.taken)
        return t("waiting", players=count("players", open_seats), game=v.name)
    if v.turn is not None:
        return t("toPlay", who=player(seen, v.turn))
    return None


def board(seen: Seen, legal: LegalMoves | None, fresh: set[int]) -> list[RenderableType]:
    """The seats, the table, the piles and the hand (numbered as
    :func:`numbering` says, ``fresh`` cards highlighted), and the first hints."""
    v = seen.view
    out: list[RenderableType] = [
        Rule(t("board.rule", round=v.round, variant=v.variant.name, game=v.name))
    ]
    # Where any meld opens (no threshold), "opened" says nothing.
    opening = bool(v.variant.parameters.get("open_threshold", 0))
    columns = ["", "seat", "player", "cards", *(["opened"] if opening else []), "total"]
    seats = Table(box=None, padding=(0, 1), show_edge=False)
    for col in columns:
        seats.add_column(
            t(f"col.{col}") if col else "",
            justify="right" if col in ("cards", "total") else "left",
        )
    for s in v.seats:
        name = seat_name(v, s.seat) + (t("seat.you") if s.seat == seen.me else "")
        if s.resigned:
            name += t("seat.resigned")
        opened = [t("yes") if s.opened else t("no")] if opening else []
        seats.add_row(
            "▶" if s.seat == v.turn else "",
            str(s.seat),
            name,
            str(s.hand_size),
            *opened,
            str(s.total),
        )
    out.append(seats)
    shown = numbering(v)
    if shown.table:
        out.append(t("table"))
        melds = Table.grid(padding=(0, 2))
        melds.add_column(justify="right", style="cyan")
        melds.add_column()
        melds.add_column(style="dim")
        for i, m in enumerate(shown.table, 1):
            owner = t("you") if m.owner == seen.me else seat_name(v, m.owner)
            kind = t(f"kind.{m.meld.kind.value}")
            melds.add_row(
                f"  {i}",
                meld_text(m.meld),
                t("meld.row", kind=kind, value=m.meld.value, owner=owner),
            )
        out.append(melds)
    else:
        out.append(t("table.none"))
    top = v.discard_top
    pile = (
        t("pile", card=styled(top), cards=count("cards", len(v.discard_pile)))
        if top
        else t("pile.empty")
    )
    out.append(t("piles", pile=pile, stock=count("cards", v.stock_size)))
    out.append(t("hand", cards=count("cards", len(shown.hand))))
    n = 1
    for suit, in_suit in v.hand_by_suit().items():
        line = Text("  ")
        line.append(suit.symbol if suit is not None else "★", style=suit_style(suit))
        for c in in_suit:
            line.append(f"  {n}:", style="dim")
            highlight = " reverse" if c.id in fresh else ""
            line.append(c.symbol, style=suit_style(c.suit) + highlight)
            n += 1
        out.append(line)
    first = hints(seen, legal, shown, full=False)
    if first is not None:
        out.append(first)
    return out


def hints(seen: Seen, legal: LegalMoves | None, shown: Numbering, full: bool) -> str | None:
    """The server's hints as the commands that play them: the first of each
    kind, or (``full``) more, with the best split of the hand."""
    v = seen.view
    if legal is None or not v.my_turn:
        return None
    index = {c.id: i for i, c in enumerate(shown.hand, 1)}
    tables = {m.index: i for i, m in enumerate(shown.table, 1)}

    def nums(ids: Sequence[int]) -> str:
        return " ".join(str(index.get(i, "?")) for i in ids)

    lines: list[str] = []
    for move in legal.melds[: 3 if full else 1]:
        cmd = "m " + " / ".join(nums(m) for m in move.melds)
        what = " | ".join(cards(seen, m) for m in move.melds)
        value = t("hint.meldValue", points=count("points", move.value)) if move.value else ""
        lines.append(t("hint.meld", cmd=cmd, what=what, value=value))
    for lo in legal.lay_offs[: 6 if full else 2]:
        at = " start" if lo.end is End.FIRST else ""
        cmd = f"o {nums([lo.card_id])} {tables.get(lo.meld_index, '?')}{at}"
        lines.append(t("hint.layOff", cmd=cmd, card=card(seen, lo.card_id)))
    for sw in legal.swaps[: 4 if full else 1]:
        cmd = f"s {nums([sw.card_id])} {tables.get(sw.meld_index, '?')}"
        lines.append(t("hint.swap", cmd=cmd, card=card(seen, sw.card_id)))
    hint = legal.hint
    if hint is not None and hint.best_knock is not None:
        k = hint.best_knock
        drop = "" if k.discard_card_id is None else f" {nums([k.discard_card_id])}"
        what = " | ".join(cards(seen, m) for m in k.melds) or t("hint.noMelds")
        lines.append(t("hint.knock", cmd=f"k{drop}", what=what, n=k.deadwood))
    if hint is not None and hint.suggested_discard is not None and legal.discards:
        d = hint.suggested_discard
        same = [
            x.card_id
            for x in legal.discards
            if (c := seen.cards.get(x.card_id)) is not None and c.code == d.code
        ]
        if same:
            pick = d.id if d.id in same else same[0]
            lines.append(t("hint.discard", cmd=f"x {nums([pick])}", card=styled(d)))
    if full and hint is not None and hint.min_deadwood is not None:
        dw = hint.min_deadwood
        melds = " | ".join(meld_text(m) for m in dw.melds) or t("hint.none")
        left = " ".join(styled(c) for c in sort_cards(dw.deadwood)) or t("hint.nothing")
        lines.append(t("hint.split", melds=melds, left=left, points=count("points", dw.value)))
    if full and not legal.melds and v.phase is TurnPhase.PLAY:
        me = v.me
        if me is not None and not me.opened:
            lines.append(t("hint.cannotOpen"))
    if lines:
        return t("hints") + ("\n        ".join(lines))
    if full:
        return t("hints.none")
    return None


def prompt(view: GameView, legal: LegalMoves | None) -> str:
    """The prompt of the person's turn: the commands the phase allows."""
    if view.phase is TurnPhase.LAYOFF:
        return t("prompt.defend")
    if view.phase is TurnPhase.DRAW:
        options = []
        kinds = {type(m).__name__ for m in (legal.moves if legal else ())}
        if "DrawFromStock" in kinds:
            options.append(t("prompt.draw"))
        if "TakeDiscard" in kinds and view.discard_top is not None:
            options.append(t("prompt.take", card=styled(view.discard_top)))
        if "TurnOverDiscardPile" in kinds:
            options.append(t("prompt.turnOver"))
        if "PassUpcard" in kinds:
            options.append(t("prompt.pass"))
        choices = " · ".join(options) or t("prompt.drawAny")
        return t("prompt.yourTurn", choices=choices)
    if view.variant.parameters.get("knocking"):
        knock = t("prompt.knock") if legal is not None and legal.knocks else ""
        return t("prompt.playGin", knock=knock)
    return t("prompt.play")


def event_text(seen: Seen, e: Event) -> str | None:
    """One line telling an event, from the person's side (``None``: nothing to tell)."""
    who = capital(player(seen, e.seat))
    you = e.seat == seen.me

    def said(key: str, **params: object) -> str:
        """The event's words: the person's own (``key.you``), or another's with ``who``."""
        return t(f"{key}.you", **params) if you else t(key, who=who, **params)

    match e:
        case DrewFromStock(card=drawn):
            what = f" {card(seen, drawn)}" if you and drawn is not None else ""
            return said("ev.drew", card=what)
        case TookDiscard(card=taken):
            return said("ev.took", card=card(seen, taken))
        case DiscardPileTurnedOver():
            return said("ev.turnedOver")
        case StockReshuffled(stock_size=size):
            return t("ev.reshuffled", cards=count("cards", size))
        case MeldsLaid(melds=melds, opening=opening):
            shown = " | ".join(cards(seen, m) for m in melds)
            return said("ev.opened" if opening else "ev.laid", melds=shown)
        case LaidOff(card=laid, meld=meld):
            return said("ev.laidOff", card=card(seen, laid), n=meld_number(seen.view, meld))
        case JokerSwapped(card=given, meld=meld):
            return said("ev.swapped", card=card(seen, given), n=meld_number(seen.view, meld))
        case Discarded(card=dropped):
            return said("ev.discarded", card=card(seen, dropped))
        case Resigned():
            return said("ev.resigned")
        case PassedUpcard():
            return said("ev.passed")
        case Knocked(melds=melds, deadwood=deadwood):
            shown = " | ".join(cards(seen, m) for m in melds) or t("hint.noMelds")
            if deadwood:
                return said("ev.knocked", n=deadwood, melds=shown)
            return said("ev.gin", melds=shown)
        case LayoutAccepted():
            return said("ev.accepted")
        case RoundStarted(round=number, first_player=first):
            return t("ev.roundStarted", n=number, who=player(seen, first))
        case SeatJoined(player_name=name):
            return t("ev.joined", name=escape(name), seat=e.seat)
        case SeatTimedOut():
            return said("ev.timedOut")
        case SeatReclaimed() | MatchEnded():
            return None
        case GameEnded(reason=reason):
            return t("ev.gameEnded", reason=escape(reason))
    return None


def meld_number(view: GameView, index: int) -> str:
    """A table meld's number as the board shows it."""
    for i, m in enumerate(view.table, 1):
        if m.index == index:
            return str(i)
    return str(index + 1)


def score_part(seen: Seen, part: ScorePart) -> str:
    """One part of a seat's score in words, as the server sent it
    ("83 in hand → 100: never opened", "undercut +25"): the page's words,
    worked out from nothing but the part."""
    words = "".join(w.capitalize() for w in part.kind.split("_"))
    key = f"part.{words[:1].lower()}{words[1:]}"
    # A hand collected from a seat that never opened counts a flat score in
    # place of its penalty (``base``).
    if part.kind == "hand_collected" and part.base != part.points:
        key = "part.handCollectedNeverOpened"
    if t(key) == key:
        key = "part.unknown"
    return t(
        key,
        n=part.points,
        points=f"{part.points:+d}",
        base=part.base,
        factor=part.factor,
        who=player(seen, part.seat),
    )


def score_parts(seen: Seen, parts: Sequence[ScorePart]) -> str:
    """A seat's score's parts in words, in the server's order ("" for none)."""
    return ", ".join(score_part(seen, p) for p in parts)


def round_scores(seen: Seen, e: RoundEnded, table: bool) -> list[RenderableType]:
    """How the round ended, and (``table``) its scores beside the totals."""
    if e.ending == "went_out" and e.winner == seen.me:
        how = t("ending.wentOut.you")
    elif e.ending == "went_out" and e.winner is not None:
        how = t("ending.wentOut", who=player(seen, e.winner))
    elif e.ending == "stock_exhausted":
        how = t("ending.stockExhausted")
    elif e.ending == "resignations":
        how = t("ending.resignations")
    else:
        how = e.ending.replace("_", " ")
    out: list[RenderableType] = [t("round.over", n=e.round, how=how)]
    if not table:
        return out
    scores = Table(box=None, padding=(0, 2))
    scores.add_column(t("col.player"))
    scores.add_column(t("col.thisRound"), justify="right")
    if e.parts:
        scores.add_column(t("col.howItCounts"))
    scores.add_column(t("col.total"), justify="right", style="bold")
    totals = {s.seat: s.total for s in seen.view.seats}
    for s, score in zip(seen.view.seats, e.scores, strict=False):
        name = t("you") if s.seat == seen.me else seat_name(seen.view, s.seat)
        parts = e.parts[s.seat] if s.seat < len(e.parts) else ()
        counts = [score_parts(seen, parts)] if e.parts else []
        scores.add_row(name, str(score), *counts, str(totals.get(s.seat, "")))
    out.append(scores)
    return out


def final(seen: Seen) -> list[RenderableType]:
    """The match's table of scores, its winners and its seed."""
    v = seen.view
    out: list[RenderableType] = [Rule(t("final.rule"))]
    table = Table(box=None, padding=(0, 2))
    table.add_column(t("col.player"))
    for r in v.rounds:
        table.add_column(t("col.round", n=r.round), justify="right")
    table.add_column(t("col.total"), justify="right", style="bold")
    for s in v.seats:
        name = t("you") if s.seat == seen.me else seat_name(v, s.seat)
        scores = [str(r.scores[s.seat]) if s.seat < len(r.scores) else "" for r in v.rounds]
        table.add_row(name, *scores, str(s.total))
    out.append(table)
    if v.winners == (seen.me,):
        out.append(t("final.youWin"))
    elif v.winners:
        names = t("and").join(player(seen, w) for w in v.winners)
        out.append(t("final.win", who=capital(names)))
    if v.seed:
        out.append(t("final.seed", seed=v.seed, hash=v.seed_hash[:16]))
    return out


def come_back(view: GameView, token: str) -> str:
    """The command that takes the person back to their seat."""
    return t("comeBack", command=f"ramino-play --game {view.name} --token {token}")


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def symbol(code: str) -> str:
    try:
        return Card.from_code(code).symbol
    except ValueError:
        return code


def suit_style(suit: Suit | None) -> str:
    if suit is None:
        return "bold magenta"
    return _SUIT_STYLE.get(suit, "bold")


def styled(c: Card) -> str:
    return f"[{suit_style(c.suit)}]{c.symbol}[/]"


def meld_text(meld: Meld) -> str:
    """A meld's cards, each joker with the card it stands for."""
    parts = []
    roles = {j.index: j.stands_for for j in meld.jokers}
    for i, c in enumerate(meld.cards):
        text = styled(c)
        stands = roles.get(i)
        if c.joker and stands and len(stands) == 1:
            text += f"[dim]={symbol(stands[0])}[/dim]"
        parts.append(text)
    return " ".join(parts)
