"""RulesService: stateless meld validation and hand analysis.

Sizes are checked first, before any card is parsed (``limits``); the hand
analysis then runs in the work pool, off the event loop (``pool``). A meld
validation, at most ``MAX_MELD_CARDS`` cards, takes microseconds and is
answered on the loop."""

from __future__ import annotations

from collections.abc import Mapping

import ramino
from ramino import limits
from ramino import reasons as R
from ramino.api import convert
from ramino.api.interceptors import Context
from ramino.bots.levels import level_infos, ratings_source
from ramino.bots.search import LEVEL_BUDGETS, Budget
from ramino.pool import WorkPool, shared
from ramino.v1 import rules_pb2, rules_pb2_grpc


def check_analyze_request(request: rules_pb2.AnalyzeHandRequest) -> None:
    """The sizes of an AnalyzeHand request, within limits a game never reaches."""
    limits.check_cards(request.hand, limits.MAX_HAND, R.HAND_TOO_LARGE, "a hand")
    if len(request.table) > limits.MAX_TABLE_MELDS:
        raise limits.invalid(
            R.TABLE_TOO_LARGE,
            f"a table holds at most {limits.MAX_TABLE_MELDS} melds, not {len(request.table)}",
        )
    for m in request.table:
        limits.check_cards(m.cards, limits.MAX_MELD_CARDS, R.MELD_TOO_LARGE, "a table meld")


def analyze_hand(
    request: rules_pb2.AnalyzeHandRequest, variant: ramino.Variant
) -> rules_pb2.AnalyzeHandResponse:
    """The answer to a checked AnalyzeHand request (run in the work pool:
    the searches release the GIL)."""
    hand = [str(c) for c in ramino.parse_cards(list(request.hand))]
    table = [list(m.cards) for m in request.table]
    opening = ramino.best_opening(hand, variant, include=request.include or None)
    deadwood = ramino.min_deadwood(hand, variant)
    response = rules_pb2.AnalyzeHandResponse(
        min_deadwood=convert.deadwood(deadwood, variant),
        penalty=ramino.penalty(hand, variant),
    )
    if opening is not None:
        response.best_opening.CopyFrom(convert.opening(opening, variant))
    if table:
        for lay in ramino.layoff_targets(hand, table, variant):
            response.lay_offs.add(
                card=convert.card(lay.card),
                meld_index=lay.meld,
                end=convert.end_value(lay.end),
            )
        for swap in ramino.joker_swaps(hand, table, variant):
            response.joker_swaps.add(
                card=convert.card(swap.card), meld_index=swap.meld, joker_index=swap.joker_index
            )
    return response


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
    def __init__(
        self, pool: WorkPool | None = None, bot_budgets: Mapping[str, Budget] = LEVEL_BUDGETS
    ) -> None:
        """``bot_budgets``: the searching levels' budgets on this server,
        told to whoever lists the levels."""
        self.pool = pool or shared()
        self.bot_budgets = bot_budgets

    async def ValidateMeld(  # noqa: N802 - gRPC method name
        self, request: rules_pb2.ValidateMeldRequest, context: Context
    ) -> rules_pb2.ValidateMeldResponse:
        limits.check_cards(request.cards, limits.MAX_MELD_CARDS, R.MELD_TOO_LARGE, "a meld")
        variant = convert.variant(request.variant, request.overrides)
        cards = ramino.parse_cards(list(request.cards))
        try:
            meld = ramino.validate_meld(cards, variant)
        except ramino.InvalidMeld as e:
            return rules_pb2.ValidateMeldResponse(valid=False, reason=e.reason, message=str(e))
        return rules_pb2.ValidateMeldResponse(valid=True, meld=convert.meld(meld))

    async def AnalyzeHand(  # noqa: N802
        self, request: rules_pb2.AnalyzeHandRequest, context: Context
    ) -> rules_pb2.AnalyzeHandResponse:
        check_analyze_request(request)
        variant = convert.variant(request.variant, request.overrides)
        return await self.pool.run(analyze_hand, request, variant)

    async def ListVariants(  # noqa: N802
        self, request: rules_pb2.ListVariantsRequest, context: Context
    ) -> rules_pb2.ListVariantsResponse:
        return rules_pb2.ListVariantsResponse(
            variants=[convert.variant_message(ramino.Variant(name)) for name in ramino.PRESETS]
        )

    async def ListBotLevels(  # noqa: N802
        self, request: rules_pb2.ListBotLevelsRequest, context: Context
    ) -> rules_pb2.ListBotLevelsResponse:
        return rules_pb2.ListBotLevelsResponse(
            levels=[
                rules_pb2.BotLevelInfo(
                    level=convert.BOT_LEVELS[info.name],
                    name=info.name,
                    description=info.description,
                    time_ms=info.time_ms,
                    rating_mu=info.mu,
                    rating_sigma=info.sigma,
                    rating=info.rating,
                )
                for info in level_infos(self.bot_budgets)
            ],
            ratings_source=ratings_source(),
        )
