"""What ``ramino-play`` shows, as rich markup and renderables: pure functions
of what the person's screen knows (the latest view, their seat, the cards
seen so far), printed by the session; no server, no terminal."""

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
    Suit,
    TurnPhase,
    sort_cards,
)
from ramino_client.moves import LegalMoves
from ramino_client.play.commands import Numbering

HELP = """\
[bold]Commands[/bold] (cards by their number in your hand, or by code like [cyan]KD[/cyan], \
[cyan]10h[/cyan], [cyan]jk[/cyan]):
  [cyan]d[/cyan]                        draw from the stock
  [cyan]t[/cyan]                        take the top card of the discard pile
  [cyan]u[/cyan]                        turn the discard pile over (when the stock is empty)
  [cyan]m 1 2 3 / 4 5 6[/cyan]          lay melds (a run in ascending order)
  [cyan]o <card> <meld> \\[start|end][/cyan]  lay a card off on a table meld
  [cyan]s <card> <meld> \\[joker][/cyan]     give a card for a table meld's joker
  [cyan]x <card>[/cyan]                 discard (ends your turn)
  gin: [cyan]p[/cyan] pass the upcard · [cyan]k[/cyan] knock (the best knock) · \
[cyan]k <card>[/cyan] knock discarding that card · [cyan]k <card> 1 2 3 / 4 5 6[/cyan] \
knock with those melds · [cyan]a[/cyan] accept the layout (the defender, after laying off)
  [cyan]h[/cyan]                        hints: what you can meld, lay off, discard
  [cyan]b[/cyan]                        show the board again
  [cyan]q[/cyan]                        resign and quit
  [cyan]?[/cyan]                        this help"""

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
        return "you"
    return escape(seen.view.seats[seat].label)


def card(seen: Seen, card_id: int | None) -> str:
    c = seen.cards.get(card_id) if card_id is not None else None
    return styled(c) if c is not None else "a card"


def cards(seen: Seen, ids: Sequence[int]) -> str:
    return " ".join(card(seen, i) for i in ids)


def intro(seen: Seen) -> str:
    v = seen.view
    return (
        f"You are [bold]{escape(v.seats[seen.me].label)}[/bold], seat "
        f"{seen.me} of {v.name} ({v.variant.name}). Type [cyan]?[/cyan] for help."
    )


def waiting(seen: Seen) -> str | None:
    """What the game waits for, when it is not the person."""
    v = seen.view
    if v.status is GameStatus.WAITING:
        open_seats = sum(1 for s in v.seats if not s.taken)
        return (
            f"Waiting for {open_seats} more player(s); they join with: "
            f"[cyan]ramino-play --game {v.name}[/cyan]"
        )
    if v.turn is not None:
        return f"[dim]… {player(seen, v.turn)} to play[/dim]"
    return None


def board(seen: Seen, legal: LegalMoves | None, fresh: set[int]) -> list[RenderableType]:
    """The seats, the table, the piles and the hand (numbered as
    :func:`numbering` says, ``fresh`` cards highlighted), and the first hints."""
    v = seen.view
    out: list[RenderableType] = [Rule(f"Round {v.round} · {v.variant.name} · {v.name}")]
    # Where any meld opens (no threshold), "opened" says nothing.
    opening = bool(v.variant.parameters.get("open_threshold", 0))
    columns = ["", "seat", "player", "cards", *(["opened"] if opening else []), "total"]
    seats = Table(box=None, padding=(0, 1), show_edge=False)
    for col in columns:
        seats.add_column(col, justify="right" if col in ("cards", "total") else "left")
    for s in v.seats:
        name = escape(s.label) + (" (you)" if s.seat == seen.me else "")
        if s.bot is not None and s.bot.value not in s.label:
            name += f" [dim]({s.bot.value} bot)[/dim]"
        if s.resigned:
            name += " [dim](resigned)[/dim]"
        opened = ["yes" if s.opened else "no"] if opening else []
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
        out.append("[bold]Table[/bold]")
        melds = Table.grid(padding=(0, 2))
        melds.add_column(justify="right", style="cyan")
        melds.add_column()
        melds.add_column(style="dim")
        for i, t in enumerate(shown.table, 1):
            owner = "you" if t.owner == seen.me else escape(v.seats[t.owner].label)
            melds.add_row(
                f"  {i}", meld_text(t.meld), f"{t.meld.kind.value} {t.meld.value}, {owner}"
            )
        out.append(melds)
    else:
        out.append("[bold]Table[/bold] [dim]no melds yet[/dim]")
    top = v.discard_top
    pile = f"{styled(top)} [dim]({count(len(v.discard_pile), 'card')})[/dim]" if top else "empty"
    out.append(
        f"[bold]Discard pile[/bold] {pile}    [bold]Stock[/bold] {count(v.stock_size, 'card')}"
    )
    out.append(f"[bold]Your hand[/bold] ({len(shown.hand)} cards)")
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
    tables = {t.index: i for i, t in enumerate(shown.table, 1)}

    def nums(ids: Sequence[int]) -> str:
        return " ".join(str(index.get(i, "?")) for i in ids)

    lines: list[str] = []
    for move in legal.melds[: 3 if full else 1]:
        cmd = "m " + " / ".join(nums(m) for m in move.melds)
        what = " | ".join(cards(seen, m) for m in move.melds)
        value = f", {move.value} points" if move.value else ""
        lines.append(f"meld: [cyan]{cmd}[/cyan]  ({what}{value})")
    for lo in legal.lay_offs[: 6 if full else 2]:
        at = " start" if lo.end is End.FIRST else ""
        cmd = f"o {nums([lo.card_id])} {tables.get(lo.meld_index, '?')}{at}"
        lines.append(f"lay off: [cyan]{cmd}[/cyan]  ({card(seen, lo.card_id)})")
    for sw in legal.swaps[: 4 if full else 1]:
        cmd = f"s {nums([sw.card_id])} {tables.get(sw.meld_index, '?')}"
        lines.append(f"swap: [cyan]{cmd}[/cyan]  ({card(seen, sw.card_id)} for the joker)")
    hint = legal.hint
    if hint is not None and hint.best_knock is not None:
        k = hint.best_knock
        drop = "" if k.discard_card_id is None else f" {nums([k.discard_card_id])}"
        what = " | ".join(cards(seen, m) for m in k.melds) or "no melds"
        lines.append(f"knock: [cyan]k{drop}[/cyan]  ({what}; {k.deadwood} unmatched)")
    if hint is not None and hint.suggested_discard is not None and legal.discards:
        d = hint.suggested_discard
        same = [
            x.card_id
            for x in legal.discards
            if (c := seen.cards.get(x.card_id)) is not None and c.code == d.code
        ]
        if same:
            pick = d.id if d.id in same else same[0]
            lines.append(f"discard: [cyan]x {nums([pick])}[/cyan]  ({styled(d)})")
    if full and hint is not None and hint.min_deadwood is not None:
        dw = hint.min_deadwood
        melds = " | ".join(meld_text(m) for m in dw.melds) or "none"
        left = " ".join(styled(c) for c in sort_cards(dw.deadwood)) or "nothing"
        lines.append(f"best split: {melds}; left over: {left} ({dw.value} points)")
    if full and not legal.melds and v.phase is TurnPhase.PLAY:
        me = v.me
        if me is not None and not me.opened:
            lines.append("you cannot open yet")
    if lines:
        return "[bold]Hints[/bold]  " + ("\n        ".join(lines))
    if full:
        return "[dim]No hints: nothing to meld or lay off.[/dim]"
    return None


def prompt(view: GameView, legal: LegalMoves | None) -> str:
    """The prompt of the person's turn: the commands the phase allows."""
    if view.phase is TurnPhase.LAYOFF:
        return (
            "Defend: [cyan]o[/cyan] lay off · [cyan]m[/cyan] meld · [cyan]a[/cyan] accept · "
            "[cyan]h[/cyan] hints [dim](? help)[/dim] > "
        )
    if view.phase is TurnPhase.DRAW:
        options = []
        kinds = {type(m).__name__ for m in (legal.moves if legal else ())}
        if "DrawFromStock" in kinds:
            options.append("[cyan]d[/cyan] draw")
        if "TakeDiscard" in kinds and view.discard_top is not None:
            options.append(f"[cyan]t[/cyan] take {styled(view.discard_top)}")
        if "TurnOverDiscardPile" in kinds:
            options.append("[cyan]u[/cyan] turn the pile over")
        if "PassUpcard" in kinds:
            options.append("[cyan]p[/cyan] pass")
        choices = " · ".join(options) or "draw"
        return f"Your turn: {choices}  [dim](? help)[/dim] > "
    if view.variant.parameters.get("knocking"):
        knock = " · [cyan]k[/cyan] knock" if legal is not None and legal.knocks else ""
        return f"Play: [cyan]x[/cyan] discard{knock} · [cyan]h[/cyan] hints [dim](? help)[/dim] > "
    return (
        "Play: [cyan]m[/cyan] meld · [cyan]o[/cyan] lay off · [cyan]s[/cyan] swap · "
        "[cyan]x[/cyan] discard · [cyan]h[/cyan] hints [dim](? help)[/dim] > "
    )


def event_text(seen: Seen, e: Event) -> str | None:
    """One line telling an event, from the person's side (``None``: nothing to tell)."""
    who = capital(player(seen, e.seat))
    you = e.seat == seen.me

    def verb(yours: str, theirs: str) -> str:
        return yours if you else theirs

    match e:
        case DrewFromStock(card=drawn):
            what = f" {card(seen, drawn)}" if you and drawn is not None else ""
            return f"{who} {verb('draw', 'draws')}{what} from the stock."
        case TookDiscard(card=taken):
            return f"{who} {verb('take', 'takes')} {card(seen, taken)} from the pile."
        case DiscardPileTurnedOver():
            return f"{who} {verb('turn', 'turns')} the discard pile over."
        case StockReshuffled(stock_size=size):
            return f"The discard pile is shuffled into a new stock of {size} cards."
        case MeldsLaid(melds=melds, opening=opening):
            shown = " | ".join(cards(seen, m) for m in melds)
            action = verb("open with", "opens with") if opening else verb("lay", "lays")
            return f"{who} {action} {shown}."
        case LaidOff(card=laid, meld=meld):
            return (
                f"{who} {verb('lay', 'lays')} off {card(seen, laid)} "
                f"on meld {meld_number(seen.view, meld)}."
            )
        case JokerSwapped(card=given, meld=meld):
            return (
                f"{who} {verb('give', 'gives')} {card(seen, given)} for the "
                f"joker of meld {meld_number(seen.view, meld)}."
            )
        case Discarded(card=dropped):
            return f"{who} {verb('discard', 'discards')} {card(seen, dropped)}."
        case Resigned():
            return f"{who} {verb('resign', 'resigns')}."
        case PassedUpcard():
            return f"{who} {verb('pass', 'passes')} on the upcard."
        case Knocked(melds=melds, deadwood=deadwood):
            shown = " | ".join(cards(seen, m) for m in melds) or "no melds"
            if deadwood:
                how = verb("knock", "knocks") + f" with {deadwood} unmatched"
            else:
                how = verb("go", "goes") + " gin"
            return f"{who} {how}: {shown}."
        case LayoutAccepted():
            return f"{who} {verb('accept', 'accepts')} the layout."
        case RoundStarted(round=number, first_player=first):
            return f"[bold]Round {number}[/bold] is dealt; {player(seen, first)} to play first."
        case SeatJoined(player_name=name):
            return f"{escape(name)} takes seat {e.seat}."
        case SeatTimedOut():
            return f"{who} ran out of time: a bot plays that turn."
        case SeatReclaimed() | MatchEnded():
            return None
        case GameEnded(reason=reason):
            return f"[bold]The game has ended[/bold] before its match: {escape(reason)}."
    return None


def meld_number(view: GameView, index: int) -> str:
    """A table meld's number as the board shows it."""
    for i, t in enumerate(view.table, 1):
        if t.index == index:
            return str(i)
    return str(index + 1)


def round_scores(seen: Seen, e: RoundEnded, table: bool) -> list[RenderableType]:
    """How the round ended, and (``table``) its scores beside the totals."""
    if e.ending == "went_out" and e.winner is not None:
        how = f"{player(seen, e.winner)} went out"
    elif e.ending == "stock_exhausted":
        how = "the stock ran out"
    elif e.ending == "resignations":
        how = "everyone else resigned"
    else:
        how = e.ending.replace("_", " ")
    out: list[RenderableType] = [f"[bold]Round {e.round} is over:[/bold] {how}."]
    if not table:
        return out
    scores = Table(box=None, padding=(0, 2))
    scores.add_column("player")
    scores.add_column("this round", justify="right")
    scores.add_column("total", justify="right", style="bold")
    totals = {s.seat: s.total for s in seen.view.seats}
    for s, score in zip(seen.view.seats, e.scores, strict=False):
        name = "you" if s.seat == seen.me else escape(s.label)
        scores.add_row(name, str(score), str(totals.get(s.seat, "")))
    out.append(scores)
    return out


def final(seen: Seen) -> list[RenderableType]:
    """The match's table of scores, its winners and its seed."""
    v = seen.view
    out: list[RenderableType] = [Rule("Game over")]
    table = Table(box=None, padding=(0, 2))
    table.add_column("player")
    for r in v.rounds:
        table.add_column(f"round {r.round}", justify="right")
    table.add_column("total", justify="right", style="bold")
    for s in v.seats:
        name = "you" if s.seat == seen.me else escape(s.label)
        scores = [str(r.scores[s.seat]) if s.seat < len(r.scores) else "" for r in v.rounds]
        table.add_row(name, *scores, str(s.total))
    out.append(table)
    if v.winners:
        names = " and ".join(player(seen, w) for w in v.winners)
        verb = "win" if v.winners == (seen.me,) else "wins"
        out.append(f"[bold green]{names.capitalize()} {verb} the match.[/bold green]")
    if v.seed:
        out.append(f"[dim]Seed {v.seed} (published hash {v.seed_hash[:16]}…)[/dim]")
    return out


def come_back(view: GameView, token: str) -> str:
    """The command that takes the person back to their seat."""
    return (
        f"Left without resigning. Come back with: [cyan]ramino-play --game {view.name} "
        f"--token {token}[/cyan]"
    )


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


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
