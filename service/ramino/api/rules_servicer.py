"""RulesService: stateless meld validation and hand analysis."""

from __future__ import annotations

import ramino
from ramino.api import convert
from ramino.api.interceptors import Context
from ramino.v1 import rules_pb2, rules_pb2_grpc


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
    async def ValidateMeld(  # noqa: N802 - gRPC method name
        self, request: rules_pb2.ValidateMeldRequest, context: Context
    ) -> rules_pb2.ValidateMeldResponse:
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
        variant = convert.variant(request.variant, request.overrides)
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

    async def ListVariants(  # noqa: N802
        self, request: rules_pb2.ListVariantsRequest, context: Context
    ) -> rules_pb2.ListVariantsResponse:
        return rules_pb2.ListVariantsResponse(
            variants=[convert.variant_message(ramino.Variant(name)) for name in ramino.PRESETS]
        )
