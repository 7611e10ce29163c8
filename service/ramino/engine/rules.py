"""The rules: a command checked against the state becomes events, and the state
after them may call for more (a reshuffle, the end of a round, the next deal,
the end of the match).

:func:`decide` never changes the state; it raises :class:`IllegalMove` or
:class:`MalformedCommand` or returns the events of the command.
:func:`follow_up` returns the events the state itself calls for, one step at a
time, until it returns nothing. Every rule reads variant parameters only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ramino
from ramino import reasons as r
from ramino.engine.commands import (
    AcceptLayout,
    Command,
    Discard,
    DrawFromStock,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    Resign,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from ramino.engine.context import Rules
from ramino.engine.deck import deal, reshuffle_seed, round_seed
from ramino.engine.errors import IllegalMove, MalformedCommand
from ramino.engine.events import (
    BIG_GIN,
    DRAWN,
    GIN,
    KNOCK,
    RESIGNATIONS,
    STOCK_EXHAUSTED,
    TURN_LIMIT,
    UNDERCUT,
    WENT_OUT,
    Discarded,
    DiscardPileTurnedOver,
    DrewFromStock,
    Event,
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
    StockReshuffled,
    TookDiscard,
)
from ramino.engine.state import (
    BETWEEN_ROUNDS,
    DRAW,
    LAYOFF,
    OVER,
    PLAY,
    State,
    at_wall,
    obliged_to_open,
)

__all__ = ["Setup", "decide", "follow_up", "round_scores", "match_winners"]


@dataclass(frozen=True, slots=True)
class Setup:
    """What a game was created with, beyond its variant."""

    seed: int
    decks: tuple[tuple[int, ...], ...] = ()
    """Explicit deck orders for the first rounds (tests and puzzles)."""


def _illegal(reason: str, message: str, detail: str | None = None) -> IllegalMove:
    return IllegalMove(message, reason, detail)


def _malformed(reason: str, message: str) -> MalformedCommand:
    return MalformedCommand(message, reason)


def _card_id(value: object, rules: Rules) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _malformed(r.BAD_FIELD, f"a card id is an integer, got {value!r}")
    if not 0 <= value < rules.deck_size:
        raise _malformed(r.UNKNOWN_CARD, f"no card {value} in a deck of {rules.deck_size}")
    return value


def _index(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _malformed(r.BAD_FIELD, f"{what} is a non-negative integer, got {value!r}")
    return value


def _in_hand(hand: list[int], card: int) -> None:
    if card not in hand:
        raise _illegal(r.CARD_NOT_IN_HAND, f"card {card} is not in your hand")


def decide(state: State, rules: Rules, seat: object, command: Command) -> list[Event]:
    """The events of ``seat`` issuing ``command`` now (the state is untouched)."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.seats):
        raise _malformed(r.UNKNOWN_SEAT, f"no seat {seat!r}")
    if state.phase == OVER:
        raise _illegal(r.MATCH_OVER, "the match is over")
    if state.seats[seat].resigned:
        raise _illegal(r.SEAT_RESIGNED, "this seat has resigned")
    if isinstance(command, Resign):
        return [Resigned(seat)]
    # Check the command's shape before the state, so that a malformed command
    # is always reported as such.
    if isinstance(command, DrawFromStock | TakeDiscard | TurnOverDiscardPile):
        shaped: Command = command
    elif isinstance(command, PassUpcard | AcceptLayout):
        shaped = command
    elif isinstance(command, Knock):
        shaped = Knock(
            None if command.discard is None else _card_id(command.discard, rules),
            _meld_ids(command.melds, rules, allow_none=True),
        )
    elif isinstance(command, Discard):
        shaped = Discard(_card_id(command.card, rules))
    elif isinstance(command, LayOff):
        if command.end not in ("start", "end"):
            raise _malformed(r.BAD_END, f"end is 'start' or 'end', got {command.end!r}")
        shaped = LayOff(_card_id(command.card, rules), _index(command.meld, "meld"), command.end)
    elif isinstance(command, SwapJoker):
        shaped = SwapJoker(
            _card_id(command.card, rules),
            _index(command.meld, "meld"),
            _card_id(command.joker, rules),
        )
    elif isinstance(command, LayMelds):
        shaped = LayMelds(_meld_ids(command.melds, rules))
    else:
        raise _malformed(r.UNKNOWN_COMMAND, f"not a command: {command!r}")
    if state.turn != seat:
        raise _illegal(r.NOT_YOUR_TURN, "it is not your turn")
    if rules.variant.knocking:
        return _knocking(state, rules, seat, shaped)
    if isinstance(shaped, PassUpcard | Knock | AcceptLayout):
        raise _illegal(r.NOT_KNOCKING_PLAY, "this variant has no knocking (gin) play")
    if isinstance(shaped, DrawFromStock | TakeDiscard | TurnOverDiscardPile):
        return _draw(state, rules, seat, shaped)
    if state.phase == DRAW:
        raise _illegal(r.MUST_DRAW_FIRST, "draw a card first")
    if isinstance(shaped, Discard):
        return _discard(state, rules, seat, shaped.card)
    if isinstance(shaped, LayMelds):
        return _lay_melds(state, rules, seat, shaped.melds)
    if isinstance(shaped, LayOff):
        return _lay_off(state, rules, seat, shaped)
    assert isinstance(shaped, SwapJoker)
    return _swap(state, rules, seat, shaped)


def _meld_ids(melds: object, rules: Rules, allow_none: bool = False) -> tuple[tuple[int, ...], ...]:
    if not isinstance(melds, list | tuple) or (not melds and not allow_none):
        raise _malformed(r.NO_MELDS, "lay at least one meld")
    out: list[tuple[int, ...]] = []
    seen: set[int] = set()
    for meld in melds:
        if not isinstance(meld, list | tuple):
            raise _malformed(r.BAD_FIELD, f"a meld is a list of card ids, got {meld!r}")
        ids = tuple(_card_id(c, rules) for c in meld)
        for c in ids:
            if c in seen:
                raise _malformed(r.DUPLICATE_CARD, f"card {c} is given twice")
            seen.add(c)
        out.append(ids)
    return tuple(out)


# --- drawing ---------------------------------------------------------------


def can_take_discard(state: State, rules: Rules, seat: int) -> str | None:
    """Why ``seat`` may not take the discard now, or ``None``."""
    if not state.discard:
        return r.DISCARD_PILE_EMPTY
    names = rules.names
    top_name = names[state.discard[-1]]
    if all(names[c] == top_name for c in state.seats[seat].hand):
        return r.NO_CARD_LEFT_TO_DISCARD
    if obliged_to_open(state, seat, rules):
        hand = state.seats[seat].hand
        top = state.discard[-1]
        names = rules.names
        cards = [names[c] for c in hand]
        cards.append(names[top])
        if ramino.best_opening(cards, rules.variant, include=names[top]) is None:
            return r.CANNOT_OPEN_WITH_DISCARD
    return None


def _draw(state: State, rules: Rules, seat: int, command: Command) -> list[Event]:
    if state.phase == PLAY:
        if (
            not rules.variant.first_turn_draws
            and seat == state.first_player
            and state.seats[seat].turns == 1
        ):
            raise _illegal(r.FIRST_TURN_HAS_NO_DRAW, "the first player's first turn has no draw")
        raise _illegal(r.ALREADY_DREW, "you have drawn this turn")
    if isinstance(command, DrawFromStock):
        if not state.stock:
            raise _illegal(r.STOCK_EMPTY, "the stock is empty: take the discard or turn it over")
        return [DrewFromStock(seat, state.stock[-1])]
    if isinstance(command, TakeDiscard):
        why = can_take_discard(state, rules, seat)
        if why == r.DISCARD_PILE_EMPTY:
            raise _illegal(why, "the discard pile is empty")
        if why == r.NO_CARD_LEFT_TO_DISCARD:
            raise _illegal(why, "you would hold only that card and its twin, neither discardable")
        if why is not None:
            raise _illegal(why, "taking the discard before opening obliges you to open with it")
        return [TookDiscard(seat, state.discard[-1])]
    if rules.reshuffle:
        raise _illegal(r.TURN_OVER_NOT_ALLOWED, "this variant reshuffles the discard pile")
    if state.stock:
        raise _illegal(r.STOCK_NOT_EMPTY, "the stock is not empty")
    if not state.discard:
        raise _illegal(r.DISCARD_PILE_EMPTY, "the discard pile is empty")
    top = state.discard[0]  # the bottom of the pile becomes the top of the stock
    return [DiscardPileTurnedOver(seat, state.rebuilds + 1), DrewFromStock(seat, top)]


# --- after the draw --------------------------------------------------------


def undiscardable(rules: Rules, taken: int | None, card: int) -> bool:
    """Whether ``card`` may not be discarded in a turn that took ``taken``
    from the discard pile: it is that card, or its identical twin from the
    other pack (RULES.md section 5)."""
    if taken is None:
        return False
    return card == taken or rules.names[card] == rules.names[taken]


def _check_leftover(
    state: State,
    rules: Rules,
    left: list[int],
    pending: int | None,
    table: list[list[str]] | None = None,
) -> None:
    """Refuses a play that would leave a turn that cannot end. ``table`` is
    the table after the play (to see whether a last undiscardable card can
    still be laid off where going out needs no discard)."""
    if not left:
        if rules.must_discard:
            raise _illegal(r.LAST_CARD_MUST_BE_DISCARDED, "keep a card: going out needs a discard")
        return
    if pending is not None and pending in left:
        if not _joker_still_meldable(state, rules, left):
            raise _illegal(
                r.SWAPPED_JOKER_NOT_MELDED,
                "the swapped joker could no longer be laid in a new meld",
            )
        return
    if all(undiscardable(rules, state.taken, c) for c in left):
        if not rules.must_discard and len(left) == 1 and table:
            name = rules.names[left[0]]
            if ramino.layoff_targets([name], table, rules.variant):
                return  # the last card can still be laid off: going out
        raise _illegal(
            r.NO_CARD_LEFT_TO_DISCARD,
            "only the card taken from the discard pile (or its twin) would be left, "
            "and it cannot be discarded",
        )


def _joker_still_meldable(state: State, rules: Rules, hand: list[int]) -> bool:
    """Whether a hand holding a swapped joker can lay it in a new meld and
    still end the turn: keep a card it may discard, or, where going out needs
    no discard, meld everything. The meld may use the card taken from the
    discard pile."""
    return joker_meld(rules, state.taken, hand) is not None or (
        not rules.must_discard
        and len(hand) <= ramino.MAX_HAND
        and not ramino.min_deadwood([rules.names[c] for c in hand], rules.variant).deadwood
    )


def joker_meld(
    rules: Rules, taken: int | None, hand: Sequence[int]
) -> tuple[list[int], list[list[str]]] | None:
    """A way to lay a swapped joker of ``hand`` in new melds and keep a card
    that may be discarded: the cards searched (``hand`` less the kept card)
    and the melds by card name; ``None`` when there is none."""
    names = rules.names
    if "JK" not in (names[c] for c in hand) or len(hand) > ramino.MAX_HAND + 1:
        return None
    tried: set[str] = set()
    for keep in hand:
        name = names[keep]
        if name in tried or rules.is_joker[keep] or undiscardable(rules, taken, keep):
            continue
        tried.add(name)
        rest = list(hand)
        rest.remove(keep)
        o = ramino.best_opening([names[c] for c in rest], rules.joker_meld_variant, include="JK")
        if o is not None:
            return rest, o.melds
    return None


def _lay_melds(
    state: State, rules: Rules, seat: int, melds: tuple[tuple[int, ...], ...]
) -> list[Event]:
    s = state.seats[seat]
    hand = s.hand
    for meld in melds:
        for c in meld:
            _in_hand(hand, c)
    names = rules.names
    v = rules.variant
    total = 0
    pure_run = False
    for meld in melds:
        try:
            m = ramino.validate_meld([names[c] for c in meld], v)
        except ramino.InvalidMeld as e:
            raise _illegal(r.INVALID_MELD, f"not a meld: {e}", e.reason) from None
        total += m.value
        pure_run = pure_run or (m.kind == "run" and m.pure)
    opening = rules.needs_opening and not s.opened
    if opening:
        if state.must_open and not any(state.taken in meld for meld in melds):
            raise _illegal(r.MUST_OPEN_WITH_TAKEN_DISCARD, "the opening must use the card you took")
        if total < v.open_threshold:
            raise _illegal(
                r.OPENING_BELOW_THRESHOLD,
                f"an opening needs {v.open_threshold}, these melds are worth {total}",
            )
        if v.open_requires_pure_run and not pure_run:
            raise _illegal(
                r.OPENING_NEEDS_PURE_RUN, "the opening needs a run of 3 or more without a joker"
            )
    used = {c for meld in melds for c in meld}
    left = [c for c in hand if c not in used]
    pending = state.pending_joker
    table = [[names[c] for c in m.cards] for m in state.melds]
    table.extend([names[c] for c in meld] for meld in melds)
    _check_leftover(state, rules, left, None if pending in used else pending, table)
    return [MeldsLaid(seat, melds, opening)]


def _may_touch_table(state: State, rules: Rules, seat: int, opening_reason: str) -> None:
    s = state.seats[seat]
    if rules.needs_opening and not s.opened:
        if state.must_open:
            raise _illegal(r.MUST_OPEN_WITH_TAKEN_DISCARD, "open first, with the card you took")
        raise _illegal(r.NOT_OPENED, "you have not opened yet")
    if state.opened_this_turn and not rules.variant.layoff_on_opening_turn:
        raise _illegal(opening_reason, "not on the turn you open")


def _table_meld(state: State, index: int) -> None:
    if index >= len(state.melds):
        raise _illegal(r.NO_SUCH_MELD, f"there is no table meld {index}")


def _lay_off(state: State, rules: Rules, seat: int, command: LayOff) -> list[Event]:
    _may_touch_table(state, rules, seat, r.NO_LAYOFF_ON_OPENING_TURN)
    hand = state.seats[seat].hand
    card = command.card
    _in_hand(hand, card)
    _table_meld(state, command.meld)
    if card == state.pending_joker:
        raise _illegal(r.SWAPPED_JOKER_NOT_MELDED, "the swapped joker goes into a new meld")
    meld = state.melds[command.meld]
    if meld.closed:
        raise _illegal(r.MELD_CLOSED, "a set of four is closed")
    names = rules.names
    try:
        extended = ramino.extend_meld(
            [names[c] for c in meld.cards], names[card], command.end, rules.variant
        )
    except ramino.InvalidMeld as e:
        raise _illegal(r.CANNOT_LAY_OFF, f"the card does not fit there: {e}", e.reason) from None
    left = [c for c in hand if c != card]
    table = [[names[c] for c in m.cards] for m in state.melds]
    table[command.meld] = list(extended.cards)
    _check_leftover(state, rules, left, state.pending_joker, table)
    return [LaidOff(seat, card, command.meld, command.end)]


def _swap(state: State, rules: Rules, seat: int, command: SwapJoker) -> list[Event]:
    if not rules.variant.joker_swap:
        raise _illegal(r.JOKER_SWAP_NOT_ALLOWED, "this variant has no joker swap")
    _may_touch_table(state, rules, seat, r.NO_SWAP_ON_OPENING_TURN)
    if state.pending_joker is not None:
        raise _illegal(
            r.SWAPPED_JOKER_NOT_MELDED, "lay the joker you swapped before swapping another"
        )
    hand = state.seats[seat].hand
    card = command.card
    _in_hand(hand, card)
    if rules.is_joker[card]:
        raise _illegal(r.SWAP_NEEDS_NATURAL_CARD, "a joker is swapped for a natural card")
    _table_meld(state, command.meld)
    meld = state.melds[command.meld]
    stands_for = meld.jokers.get(command.joker)
    if stands_for is None:
        raise _illegal(r.NO_SUCH_JOKER, f"card {command.joker} is not a joker of that meld")
    if rules.names[card] not in stands_for:
        raise _illegal(
            r.JOKER_STANDS_FOR_OTHER_CARD,
            f"that joker stands for {' or '.join(stands_for)}",
        )
    after = [c for c in hand if c != card]
    after.append(command.joker)
    if not _joker_still_meldable(state, rules, after):
        raise _illegal(
            r.SWAPPED_JOKER_CANNOT_BE_MELDED,
            "you could not lay the joker in a new meld this turn",
        )
    return [JokerSwapped(seat, card, command.meld, command.joker)]


def _discard(state: State, rules: Rules, seat: int, card: int) -> list[Event]:
    hand = state.seats[seat].hand
    _in_hand(hand, card)
    if state.must_open:
        raise _illegal(r.MUST_OPEN_WITH_TAKEN_DISCARD, "open with the card you took first")
    if card == state.taken:
        raise _illegal(
            r.CANNOT_DISCARD_TAKEN_CARD, "the card taken from the discard pile stays this turn"
        )
    if undiscardable(rules, state.taken, card):
        raise _illegal(
            r.CANNOT_DISCARD_TAKEN_TWIN,
            "the twin of the card taken from the discard pile stays this turn too",
        )
    if state.pending_joker is not None:
        raise _illegal(r.SWAPPED_JOKER_NOT_MELDED, "lay the joker you swapped in a new meld")
    return [Discarded(seat, card)]


# --- what the state calls for ----------------------------------------------


def follow_up(state: State, rules: Rules, setup: Setup) -> list[Event]:
    """The events the state calls for by itself now (possibly none)."""
    if state.phase == OVER:
        return []
    if state.phase == BETWEEN_ROUNDS:
        winners = match_winners(state, rules)
        if winners is not None:
            return [MatchEnded(final_totals(state, rules, winners), winners)]
        return [_deal_round(state, rules, setup)]
    if len(state.active()) < 2:
        return [_round_ended(state, rules, RESIGNATIONS, None)]
    if rules.variant.knocking:
        if state.accepted:
            return [_knock_scored(state, rules)]
        if state.drawn:
            return [_round_ended(state, rules, DRAWN, None)]
    elif not state.seats[state.turn].hand:
        return [_round_ended(state, rules, WENT_OUT, state.turn)]
    if sum(s.turns for s in state.seats) > rules.variant.max_turns_per_round:
        return [_round_ended(state, rules, TURN_LIMIT, None)]
    if state.phase == DRAW and not state.stock:
        v = rules.variant
        can_rebuild = state.rebuilds < v.max_stock_rebuilds
        if rules.reshuffle:
            if can_rebuild and len(state.discard) >= 2:
                rebuild = state.rebuilds + 1
                pile = state.discard[:-1]
                perm = ramino.shuffle(reshuffle_seed(setup.seed, state.round, rebuild), len(pile))
                stock = tuple(pile[i] for i in perm)
                return [StockReshuffled(rebuild, state.discard[-1], len(stock), stock)]
            return [_round_ended(state, rules, STOCK_EXHAUSTED, None)]
        if not can_rebuild or not state.discard:
            return [_round_ended(state, rules, STOCK_EXHAUSTED, None)]
    return []


def _deal_round(state: State, rules: Rules, setup: Setup) -> RoundStarted:
    v = rules.variant
    number = state.round + 1
    n = len(state.seats)
    if state.round == 0:
        dealer = n - 1
    else:
        last = state.results[-1]
        active = state.active()
        if v.same_dealer_after_draw and last.winner is None:
            dealer = state.dealer
        elif (
            v.winner_deals
            and len(active) == 2
            and last.winner is not None
            and not state.seats[last.winner].resigned
        ):
            dealer = last.winner
        else:
            dealer = state.next_active(state.dealer)
    order: Sequence[int]
    if number <= len(setup.decks):
        order = setup.decks[number - 1]
    else:
        order = ramino.shuffle(round_seed(setup.seed, number), rules.deck_size)
    seats_in_turn: list[int] = []
    s = dealer
    for _ in range(len(state.active())):
        s = state.next_active(s)
        seats_in_turn.append(s)
    size = v.hand_size(len(seats_in_turn))
    assert size is not None, "match_winners ends a match that cannot be dealt"
    d = deal(order, len(seats_in_turn), size, v.first_player_extra_cards, v.upcard)
    hands: list[tuple[int, ...] | None] = [() for _ in range(n)]
    for seat, hand in zip(seats_in_turn, d.hands, strict=True):
        hands[seat] = tuple(hand)
    return RoundStarted(
        round=number,
        dealer=dealer,
        first_player=seats_in_turn[0],
        hands=tuple(hands),
        hand_sizes=tuple(len(h or ()) for h in hands),
        upcard=d.upcard,
        stock_size=len(d.stock),
        stock=tuple(d.stock),
    )


def _round_ended(state: State, rules: Rules, ending: str, winner: int | None) -> RoundEnded:
    closed = False
    if winner is not None:
        first = state.seats[winner].first_laid_turn
        closed = first == 0 or first == state.seats[winner].turns
    scores = round_scores(state, rules, winner, closed)
    return RoundEnded(
        round=state.round,
        ending=ending,
        winner=winner,
        closed_hand=closed,
        scores=scores,
        hands=tuple(tuple(s.hand) for s in state.seats),
    )


def round_scores(state: State, rules: Rules, winner: int | None, closed: bool) -> tuple[int, ...]:
    """Scores of a round that ``winner`` won (``closed``: in one turn from an
    unopened hand); nobody scores in a round with no winner. Seats that have
    resigned score nothing."""
    n = len(state.seats)
    scores = [0] * n
    if winner is None:
        return tuple(scores)
    v = rules.variant

    def hand_score(seat: int) -> int:
        s = state.seats[seat]
        if v.never_opened_penalty and not s.opened:
            return v.never_opened_penalty
        return rules.penalty(s.hand)

    losers = [i for i in state.active() if i != winner]
    if v.scoring == "penalty":
        factor = v.closed_hand_multiplier if closed else 1
        scores[winner] = v.closed_hand_score if closed else v.winner_score
        for i in losers:
            scores[i] = hand_score(i) * factor
    else:
        factor = v.rummy_multiplier if closed else 1
        scores[winner] = sum(hand_score(i) for i in losers) * factor
    return tuple(scores)


def match_winners(state: State, rules: Rules) -> tuple[int, ...] | None:
    """The winners if the match is over between rounds, else ``None``."""
    if state.round == 0:
        return None
    v = rules.variant
    active = state.active()
    if len(active) <= 1:
        return tuple(active)
    totals = {i: state.seats[i].total for i in active}
    over = (
        (v.max_rounds and state.round >= v.max_rounds)
        or (v.target_score and any(t >= v.target_score for t in totals.values()))
        or v.hand_size(len(active)) is None
    )
    if not over:
        return None
    best = min(totals.values()) if v.scoring == "penalty" else max(totals.values())
    return tuple(i for i in active if totals[i] == best)


def final_totals(state: State, rules: Rules, winners: tuple[int, ...]) -> tuple[int, ...]:
    """The totals at the end of a match with its bonuses (gin): each seat
    ``box_bonus`` per hand won; a sole winner ``game_bonus``; and, when no
    other seat won a hand (a shutout), the winner's total times
    ``shutout_multiplier``. Every bonus is 0 (the factor 1) outside gin."""
    v = rules.variant
    totals = [s.total for s in state.seats]
    wins = [0] * len(totals)
    for result in state.results:
        if result.winner is not None:
            wins[result.winner] += 1
    for i in state.active():
        totals[i] += v.box_bonus * wins[i]
    if len(winners) == 1 and len(state.active()) > 1:
        w = winners[0]
        totals[w] += v.game_bonus
        if not any(wins[i] for i in state.active() if i != w):
            totals[w] *= v.shutout_multiplier
    return tuple(totals)


# --- knocking play (gin) -----------------------------------------------------


def wall_knock_possible(state: State, rules: Rules, seat: int) -> bool:
    """Whether ``seat``'s hand with the upcard could knock (its best ten of
    eleven cards leave at most ``knock_card`` unmatched)."""
    if not state.discard:
        return False
    names = rules.names
    cards = [names[c] for c in state.seats[seat].hand]
    cards.append(names[state.discard[-1]])
    return knock_deadwood(cards, rules) <= rules.variant.knock_card


def knock_deadwood(cards: list[str], rules: Rules) -> int:
    """The least unmatched total of ``cards`` less one discard."""
    best = 10**9
    for i in range(len(cards)):
        rest = cards[:i] + cards[i + 1 :]
        if rest:
            best = min(best, ramino.min_deadwood(rest, rules.variant).value)
        else:
            best = 0
    return best


def _knocking(state: State, rules: Rules, seat: int, command: Command) -> list[Event]:
    v = rules.variant
    if state.phase == LAYOFF:
        return _defend(state, rules, seat, command)
    wall = at_wall(state, rules) and not state.first_upcard
    if state.phase == DRAW:
        if isinstance(command, PassUpcard):
            if (state.first_upcard and state.passes < 2) or wall:
                return [PassedUpcard(seat)]
            raise _illegal(r.CANNOT_PASS, "pass only on the first upcard or at the wall")
        if isinstance(command, TakeDiscard):
            if not state.discard:
                raise _illegal(r.DISCARD_PILE_EMPTY, "the discard pile is empty")
            if state.first_upcard and state.passes >= 2:
                raise _illegal(r.UPCARD_PASSED, "both passed the upcard: draw from the stock")
            if wall and not wall_knock_possible(state, rules, seat):
                raise _illegal(
                    r.WALL_NEEDS_KNOCK,
                    f"at the wall the upcard is taken only to knock (at most {v.knock_card})",
                )
            return [TookDiscard(seat, state.discard[-1])]
        if isinstance(command, DrawFromStock):
            if state.first_upcard and state.passes < 2:
                raise _illegal(r.TAKE_OR_PASS_UPCARD, "take the first upcard or pass")
            if wall:
                raise _illegal(
                    r.WALL_REACHED, "the stock is at the wall: knock with the upcard or pass"
                )
            if not state.stock:
                raise _illegal(r.STOCK_EMPTY, "the stock is empty")
            return [DrewFromStock(seat, state.stock[-1])]
        if isinstance(command, TurnOverDiscardPile):
            raise _illegal(r.TURN_OVER_NOT_ALLOWED, "the discard pile is never turned over here")
        raise _illegal(r.MUST_DRAW_FIRST, "draw a card first")
    if isinstance(command, DrawFromStock | TakeDiscard | TurnOverDiscardPile | PassUpcard):
        raise _illegal(r.ALREADY_DREW, "you have drawn this turn")
    if isinstance(command, AcceptLayout):
        raise _illegal(r.DEFENDER_TO_PLAY, "only the defender accepts a layout")
    if isinstance(command, Discard):
        _in_hand(state.seats[seat].hand, command.card)
        if state.wall_take:
            raise _illegal(r.MUST_KNOCK, "the upcard taken at the wall obliges a knock")
        return [Discarded(seat, command.card)]
    if isinstance(command, Knock):
        return _knock(state, rules, seat, command)
    raise _illegal(r.MELDS_ONLY_BY_KNOCKING, "in gin, melds are laid only by knocking")


def _knock(state: State, rules: Rules, seat: int, command: Knock) -> list[Event]:
    v = rules.variant
    hand = list(state.seats[seat].hand)
    if command.discard is None:
        if not v.big_gin:
            raise _illegal(r.BIG_GIN_NOT_ALLOWED, "a knock discards a card (big gin is off)")
    else:
        _in_hand(hand, command.discard)
        hand.remove(command.discard)
    names = rules.names
    for meld in command.melds:
        for c in meld:
            if c not in hand:
                raise _illegal(
                    r.CARD_NOT_IN_HAND, f"card {c} is not in your hand after the discard"
                )
        try:
            ramino.validate_meld([names[c] for c in meld], v)
        except ramino.InvalidMeld as e:
            raise _illegal(r.INVALID_MELD, f"not a meld: {e}", e.reason) from None
    used = {c for meld in command.melds for c in meld}
    left = [c for c in hand if c not in used]
    deadwood = rules.penalty(left)
    if command.discard is None and left:
        raise _illegal(r.BIG_GIN_MELDS_ALL, "big gin melds all eleven cards")
    if deadwood > v.knock_card:
        raise _illegal(
            r.KNOCK_TOO_HIGH,
            f"the unmatched cards total {deadwood}, more than the knock card {v.knock_card}",
        )
    return [Knocked(seat, command.discard, command.melds, deadwood)]


def _defend(state: State, rules: Rules, seat: int, command: Command) -> list[Event]:
    v = rules.variant
    hand = state.seats[seat].hand
    names = rules.names
    if isinstance(command, AcceptLayout):
        return [LayoutAccepted(seat)]
    if isinstance(command, LayMelds):
        for meld in command.melds:
            for c in meld:
                _in_hand(hand, c)
            try:
                ramino.validate_meld([names[c] for c in meld], v)
            except ramino.InvalidMeld as e:
                raise _illegal(r.INVALID_MELD, f"not a meld: {e}", e.reason) from None
        return [MeldsLaid(seat, command.melds, False)]
    if isinstance(command, LayOff):
        _in_hand(hand, command.card)
        _table_meld(state, command.meld)
        knocker = state.knocker
        assert knocker is not None
        if not state.seats[knocker].hand and not state.big_gin:
            raise _illegal(r.NO_LAYOFF_ON_GIN, "no lay-offs on gin")
        if state.big_gin:
            raise _illegal(r.NO_LAYOFF_ON_GIN, "no lay-offs on big gin")
        if command.meld >= state.knock_melds:
            raise _illegal(r.LAYOFF_ONLY_ON_KNOCKERS_MELDS, "lay off only on the knocker's melds")
        if state.defender_melded:
            raise _illegal(r.NO_LAYOFF_AFTER_MELDS, "lay-offs come before your own melds")
        target = state.melds[command.meld]
        try:
            ramino.extend_meld(
                [names[c] for c in target.cards], names[command.card], command.end, v
            )
        except ramino.InvalidMeld as e:
            raise _illegal(
                r.CANNOT_LAY_OFF, f"the card does not fit there: {e}", e.reason
            ) from None
        return [LaidOff(seat, command.card, command.meld, command.end)]
    raise _illegal(r.DEFENDER_TO_PLAY, "the defender lays off, melds, or accepts the layout")


def _knock_scored(state: State, rules: Rules) -> RoundEnded:
    """The end of a knocked hand: the knocker scores the difference of the
    unmatched totals (plus the gin or big gin bonus), or the defender, when
    its total is lower (an undercut), the difference plus the undercut bonus.
    Equal totals: nobody scores."""
    v = rules.variant
    knocker = state.knocker
    assert knocker is not None
    defender = state.next_active(knocker)
    dk = rules.penalty(state.seats[knocker].hand)
    dd = rules.penalty(state.seats[defender].hand)
    scores = [0] * len(state.seats)
    winner: int | None
    if dk == 0:
        winner, ending = knocker, BIG_GIN if state.big_gin else GIN
        scores[knocker] = dd + (v.big_gin_bonus if state.big_gin else v.gin_bonus)
    elif dd > dk:
        winner, ending = knocker, KNOCK
        scores[knocker] = dd - dk
    elif dd < dk:
        winner, ending = defender, UNDERCUT
        scores[defender] = dk - dd + v.undercut_bonus
    else:
        winner, ending = None, KNOCK
    return RoundEnded(
        round=state.round,
        ending=ending,
        winner=winner,
        closed_hand=False,
        scores=tuple(scores),
        hands=tuple(tuple(s.hand) for s in state.seats),
    )
