package dev.ramino.client

// Short names for the generated messages of proto/ramino/v1 (package
// ramino.v1, outer classes GameOuterClass, Types, Rules): views, events and
// moves are those messages, built with their Java builders.

public typealias Game = ramino.v1.GameOuterClass.Game
public typealias GameView = ramino.v1.GameOuterClass.GameView
public typealias GameEvent = ramino.v1.GameOuterClass.GameEvent
public typealias GameStatus = ramino.v1.GameOuterClass.GameStatus
public typealias SeatConfig = ramino.v1.GameOuterClass.SeatConfig
public typealias BotLevel = ramino.v1.GameOuterClass.BotLevel
public typealias Move = ramino.v1.GameOuterClass.Move
public typealias MoveResult = ramino.v1.GameOuterClass.MoveResult
public typealias MeldCardIds = ramino.v1.GameOuterClass.MeldCardIds
public typealias LegalMoves = ramino.v1.GameOuterClass.GetLegalMovesResponse
public typealias WatchItem = ramino.v1.GameOuterClass.WatchGameResponse
public typealias TurnPhase = ramino.v1.GameOuterClass.TurnPhase
public typealias Card = ramino.v1.Types.Card
public typealias Suit = ramino.v1.Types.Suit
public typealias End = ramino.v1.Types.End
public typealias VariantParameters = ramino.v1.Types.VariantParameters
