package dev.ramino.client

// Short names of the SDK's own for two messages (every message and enum of
// ramino.v1 has its own name too: Protos.kt).

/** The moves a seat may make now, with the hint (GetLegalMoves' answer). */
public typealias LegalMoves = ramino.v1.GameOuterClass.GetLegalMovesResponse

/** One message of a watch: a snapshot or an event, with the game's version after it. */
public typealias WatchItem = ramino.v1.GameOuterClass.WatchGameResponse
