// Generated from proto/ramino/v1 by backend/ramino_kotlin_names.py (make kotlin-names): do not edit.
package dev.ramino.client

// Short names for the messages and enums of package ramino.v1 (the
// generated Java classes sit in outer classes: GameOuterClass, Types,
// Rules, Match). Build them with their Java builders.

public typealias SeatConfig = ramino.v1.GameOuterClass.SeatConfig
public typealias Game = ramino.v1.GameOuterClass.Game
public typealias SeatSummary = ramino.v1.GameOuterClass.SeatSummary
public typealias CreateGameRequest = ramino.v1.GameOuterClass.CreateGameRequest
public typealias CreateGameResponse = ramino.v1.GameOuterClass.CreateGameResponse
public typealias JoinGameRequest = ramino.v1.GameOuterClass.JoinGameRequest
public typealias JoinGameResponse = ramino.v1.GameOuterClass.JoinGameResponse
public typealias GetGameRequest = ramino.v1.GameOuterClass.GetGameRequest
public typealias GetGameResponse = ramino.v1.GameOuterClass.GetGameResponse
public typealias ListGamesRequest = ramino.v1.GameOuterClass.ListGamesRequest
public typealias ListGamesResponse = ramino.v1.GameOuterClass.ListGamesResponse
public typealias DrawFromStockRequest = ramino.v1.GameOuterClass.DrawFromStockRequest
public typealias DrawFromStockResponse = ramino.v1.GameOuterClass.DrawFromStockResponse
public typealias TakeDiscardRequest = ramino.v1.GameOuterClass.TakeDiscardRequest
public typealias TakeDiscardResponse = ramino.v1.GameOuterClass.TakeDiscardResponse
public typealias TurnOverDiscardPileRequest = ramino.v1.GameOuterClass.TurnOverDiscardPileRequest
public typealias TurnOverDiscardPileResponse = ramino.v1.GameOuterClass.TurnOverDiscardPileResponse
public typealias MeldCardIds = ramino.v1.GameOuterClass.MeldCardIds
public typealias LayMeldsRequest = ramino.v1.GameOuterClass.LayMeldsRequest
public typealias LayMeldsResponse = ramino.v1.GameOuterClass.LayMeldsResponse
public typealias LayOffRequest = ramino.v1.GameOuterClass.LayOffRequest
public typealias LayOffResponse = ramino.v1.GameOuterClass.LayOffResponse
public typealias SwapJokerRequest = ramino.v1.GameOuterClass.SwapJokerRequest
public typealias SwapJokerResponse = ramino.v1.GameOuterClass.SwapJokerResponse
public typealias DiscardRequest = ramino.v1.GameOuterClass.DiscardRequest
public typealias DiscardResponse = ramino.v1.GameOuterClass.DiscardResponse
public typealias ResignRequest = ramino.v1.GameOuterClass.ResignRequest
public typealias ResignResponse = ramino.v1.GameOuterClass.ResignResponse
public typealias PassUpcardRequest = ramino.v1.GameOuterClass.PassUpcardRequest
public typealias PassUpcardResponse = ramino.v1.GameOuterClass.PassUpcardResponse
public typealias KnockRequest = ramino.v1.GameOuterClass.KnockRequest
public typealias KnockResponse = ramino.v1.GameOuterClass.KnockResponse
public typealias AcceptLayoutRequest = ramino.v1.GameOuterClass.AcceptLayoutRequest
public typealias AcceptLayoutResponse = ramino.v1.GameOuterClass.AcceptLayoutResponse
public typealias MoveResult = ramino.v1.GameOuterClass.MoveResult
public typealias SeatOptions = ramino.v1.GameOuterClass.SeatOptions
public typealias WatchGameRequest = ramino.v1.GameOuterClass.WatchGameRequest
public typealias WatchGameResponse = ramino.v1.GameOuterClass.WatchGameResponse
public typealias PlayGameRequest = ramino.v1.GameOuterClass.PlayGameRequest
public typealias PlayGameStart = ramino.v1.GameOuterClass.PlayGameStart
public typealias PlayGameAsk = ramino.v1.GameOuterClass.PlayGameAsk
public typealias PlayGameResponse = ramino.v1.GameOuterClass.PlayGameResponse
public typealias MoveAnswer = ramino.v1.GameOuterClass.MoveAnswer
public typealias GameEvents = ramino.v1.GameOuterClass.GameEvents
public typealias CancelGameRequest = ramino.v1.GameOuterClass.CancelGameRequest
public typealias CancelGameResponse = ramino.v1.GameOuterClass.CancelGameResponse
public typealias GetLegalMovesRequest = ramino.v1.GameOuterClass.GetLegalMovesRequest
public typealias GetLegalMovesResponse = ramino.v1.GameOuterClass.GetLegalMovesResponse
public typealias Move = ramino.v1.GameOuterClass.Move
public typealias DrawFromStockMove = ramino.v1.GameOuterClass.DrawFromStockMove
public typealias TakeDiscardMove = ramino.v1.GameOuterClass.TakeDiscardMove
public typealias TurnOverDiscardPileMove = ramino.v1.GameOuterClass.TurnOverDiscardPileMove
public typealias LayMeldsMove = ramino.v1.GameOuterClass.LayMeldsMove
public typealias LayOffMove = ramino.v1.GameOuterClass.LayOffMove
public typealias SwapJokerMove = ramino.v1.GameOuterClass.SwapJokerMove
public typealias DiscardMove = ramino.v1.GameOuterClass.DiscardMove
public typealias ResignMove = ramino.v1.GameOuterClass.ResignMove
public typealias PassUpcardMove = ramino.v1.GameOuterClass.PassUpcardMove
public typealias KnockMove = ramino.v1.GameOuterClass.KnockMove
public typealias AcceptLayoutMove = ramino.v1.GameOuterClass.AcceptLayoutMove
public typealias Hint = ramino.v1.GameOuterClass.Hint
public typealias GameView = ramino.v1.GameOuterClass.GameView
public typealias RoundScores = ramino.v1.GameOuterClass.RoundScores
public typealias SeatView = ramino.v1.GameOuterClass.SeatView
public typealias TableMeld = ramino.v1.GameOuterClass.TableMeld
public typealias GameEvent = ramino.v1.GameOuterClass.GameEvent
public typealias GameCreated = ramino.v1.GameOuterClass.GameCreated
public typealias SeatJoined = ramino.v1.GameOuterClass.SeatJoined
public typealias SeatTimedOut = ramino.v1.GameOuterClass.SeatTimedOut
public typealias SeatReclaimed = ramino.v1.GameOuterClass.SeatReclaimed
public typealias GameEnded = ramino.v1.GameOuterClass.GameEnded
public typealias CardIds = ramino.v1.GameOuterClass.CardIds
public typealias RoundStarted = ramino.v1.GameOuterClass.RoundStarted
public typealias DrewFromStock = ramino.v1.GameOuterClass.DrewFromStock
public typealias TookDiscard = ramino.v1.GameOuterClass.TookDiscard
public typealias DiscardPileTurnedOver = ramino.v1.GameOuterClass.DiscardPileTurnedOver
public typealias StockReshuffled = ramino.v1.GameOuterClass.StockReshuffled
public typealias MeldsLaid = ramino.v1.GameOuterClass.MeldsLaid
public typealias LaidOff = ramino.v1.GameOuterClass.LaidOff
public typealias JokerSwapped = ramino.v1.GameOuterClass.JokerSwapped
public typealias Discarded = ramino.v1.GameOuterClass.Discarded
public typealias Resigned = ramino.v1.GameOuterClass.Resigned
public typealias PassedUpcard = ramino.v1.GameOuterClass.PassedUpcard
public typealias Knocked = ramino.v1.GameOuterClass.Knocked
public typealias LayoutAccepted = ramino.v1.GameOuterClass.LayoutAccepted
public typealias RoundEnded = ramino.v1.GameOuterClass.RoundEnded
public typealias MatchEnded = ramino.v1.GameOuterClass.MatchEnded
public typealias ScoreParts = ramino.v1.GameOuterClass.ScoreParts
public typealias ScorePart = ramino.v1.GameOuterClass.ScorePart
public typealias BotLevel = ramino.v1.GameOuterClass.BotLevel
public typealias Visibility = ramino.v1.GameOuterClass.Visibility
public typealias GameStatus = ramino.v1.GameOuterClass.GameStatus
public typealias TurnPhase = ramino.v1.GameOuterClass.TurnPhase
public typealias ScorePartKind = ramino.v1.GameOuterClass.ScorePartKind
public typealias Card = ramino.v1.Types.Card
public typealias JokerRole = ramino.v1.Types.JokerRole
public typealias Meld = ramino.v1.Types.Meld
public typealias MeldDescription = ramino.v1.Types.MeldDescription
public typealias Variant = ramino.v1.Types.Variant
public typealias VariantParameters = ramino.v1.Types.VariantParameters
public typealias Opening = ramino.v1.Types.Opening
public typealias Deadwood = ramino.v1.Types.Deadwood
public typealias LayOffTarget = ramino.v1.Types.LayOffTarget
public typealias JokerSwapTarget = ramino.v1.Types.JokerSwapTarget
public typealias Suit = ramino.v1.Types.Suit
public typealias MeldKind = ramino.v1.Types.MeldKind
public typealias End = ramino.v1.Types.End
public typealias Scoring = ramino.v1.Types.Scoring
public typealias StockExhausted = ramino.v1.Types.StockExhausted
public typealias ValidateMeldRequest = ramino.v1.Rules.ValidateMeldRequest
public typealias ValidateMeldResponse = ramino.v1.Rules.ValidateMeldResponse
public typealias MeldCodes = ramino.v1.Rules.MeldCodes
public typealias AnalyzeHandRequest = ramino.v1.Rules.AnalyzeHandRequest
public typealias AnalyzeHandResponse = ramino.v1.Rules.AnalyzeHandResponse
public typealias ListVariantsRequest = ramino.v1.Rules.ListVariantsRequest
public typealias ListVariantsResponse = ramino.v1.Rules.ListVariantsResponse
public typealias ListBotLevelsRequest = ramino.v1.Rules.ListBotLevelsRequest
public typealias BotLevelInfo = ramino.v1.Rules.BotLevelInfo
public typealias ListBotLevelsResponse = ramino.v1.Rules.ListBotLevelsResponse
public typealias TicketUpdate = ramino.v1.Match.TicketUpdate
public typealias TicketSeat = ramino.v1.Match.TicketSeat
public typealias SubmitTicketRequest = ramino.v1.Match.SubmitTicketRequest
public typealias MatchClause = ramino.v1.Match.MatchClause
public typealias StringSet = ramino.v1.Match.StringSet
public typealias NumberRange = ramino.v1.Match.NumberRange
public typealias SubmitTicketResponse = ramino.v1.Match.SubmitTicketResponse
public typealias WatchTicketRequest = ramino.v1.Match.WatchTicketRequest
public typealias WatchTicketResponse = ramino.v1.Match.WatchTicketResponse
public typealias CancelTicketRequest = ramino.v1.Match.CancelTicketRequest
public typealias CancelTicketResponse = ramino.v1.Match.CancelTicketResponse
public typealias ListTicketsRequest = ramino.v1.Match.ListTicketsRequest
public typealias ListTicketsResponse = ramino.v1.Match.ListTicketsResponse
public typealias Rating = ramino.v1.Match.Rating
public typealias GetRatingRequest = ramino.v1.Match.GetRatingRequest
public typealias GetRatingResponse = ramino.v1.Match.GetRatingResponse
public typealias LeaderboardEntry = ramino.v1.Match.LeaderboardEntry
public typealias ListLeaderboardRequest = ramino.v1.Match.ListLeaderboardRequest
public typealias ListLeaderboardResponse = ramino.v1.Match.ListLeaderboardResponse
public typealias PlayerGameSeat = ramino.v1.Match.PlayerGameSeat
public typealias PlayerGame = ramino.v1.Match.PlayerGame
public typealias ListPlayerGamesRequest = ramino.v1.Match.ListPlayerGamesRequest
public typealias ListPlayerGamesResponse = ramino.v1.Match.ListPlayerGamesResponse
public typealias GetGameRecordRequest = ramino.v1.Match.GetGameRecordRequest
public typealias GetGameRecordResponse = ramino.v1.Match.GetGameRecordResponse
public typealias PartyMember = ramino.v1.Match.PartyMember
public typealias Party = ramino.v1.Match.Party
public typealias CreatePartyRequest = ramino.v1.Match.CreatePartyRequest
public typealias CreatePartyResponse = ramino.v1.Match.CreatePartyResponse
public typealias InviteToPartyRequest = ramino.v1.Match.InviteToPartyRequest
public typealias InviteToPartyResponse = ramino.v1.Match.InviteToPartyResponse
public typealias JoinPartyRequest = ramino.v1.Match.JoinPartyRequest
public typealias JoinPartyResponse = ramino.v1.Match.JoinPartyResponse
public typealias LeavePartyRequest = ramino.v1.Match.LeavePartyRequest
public typealias LeavePartyResponse = ramino.v1.Match.LeavePartyResponse
public typealias GetPartyRequest = ramino.v1.Match.GetPartyRequest
public typealias GetPartyResponse = ramino.v1.Match.GetPartyResponse
public typealias TicketState = ramino.v1.Match.TicketState

// Each field with a hasX(), as a nullable property: null when unset
// (where the generated getter answers 0, false, "" or an empty message).

/** `Game.createTime`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameOrBuilder.createTimeOrNull: com.google.protobuf.Timestamp?
    get() = if (hasCreateTime()) getCreateTime() else null

/** `CreateGameRequest.overrides`, or null when it is not set. */
public val ramino.v1.GameOuterClass.CreateGameRequestOrBuilder.overridesOrNull: ramino.v1.Types.VariantParameters?
    get() = if (hasOverrides()) getOverrides() else null

/** `CreateGameResponse.game`, or null when it is not set. */
public val ramino.v1.GameOuterClass.CreateGameResponseOrBuilder.gameOrNull: ramino.v1.GameOuterClass.Game?
    get() = if (hasGame()) getGame() else null

/** `JoinGameRequest.seat`, or null when it is not set. */
public val ramino.v1.GameOuterClass.JoinGameRequestOrBuilder.seatOrNull: Int?
    get() = if (hasSeat()) getSeat() else null

/** `JoinGameResponse.view`, or null when it is not set. */
public val ramino.v1.GameOuterClass.JoinGameResponseOrBuilder.viewOrNull: ramino.v1.GameOuterClass.GameView?
    get() = if (hasView()) getView() else null

/** `GetGameResponse.view`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GetGameResponseOrBuilder.viewOrNull: ramino.v1.GameOuterClass.GameView?
    get() = if (hasView()) getView() else null

/** `DrawFromStockRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.DrawFromStockRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `DrawFromStockResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.DrawFromStockResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `TakeDiscardRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.TakeDiscardRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `TakeDiscardResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.TakeDiscardResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `TurnOverDiscardPileRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.TurnOverDiscardPileRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `TurnOverDiscardPileResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.TurnOverDiscardPileResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `LayMeldsRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.LayMeldsRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `LayMeldsResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.LayMeldsResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `LayOffRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.LayOffRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `LayOffResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.LayOffResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `SwapJokerRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.SwapJokerRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `SwapJokerResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.SwapJokerResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `DiscardRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.DiscardRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `DiscardResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.DiscardResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `ResignRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.ResignRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `ResignResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.ResignResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `PassUpcardRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PassUpcardRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `PassUpcardResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PassUpcardResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `KnockRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.KnockRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `KnockRequest.discardCardId`, or null when it is not set. */
public val ramino.v1.GameOuterClass.KnockRequestOrBuilder.discardCardIdOrNull: Int?
    get() = if (hasDiscardCardId()) getDiscardCardId() else null

/** `KnockResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.KnockResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `AcceptLayoutRequest.expectedVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.AcceptLayoutRequestOrBuilder.expectedVersionOrNull: Long?
    get() = if (hasExpectedVersion()) getExpectedVersion() else null

/** `AcceptLayoutResponse.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.AcceptLayoutResponseOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `MoveResult.view`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveResultOrBuilder.viewOrNull: ramino.v1.GameOuterClass.GameView?
    get() = if (hasView()) getView() else null

/** `MoveResult.hint`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveResultOrBuilder.hintOrNull: ramino.v1.GameOuterClass.Hint?
    get() = if (hasHint()) getHint() else null

/** `MoveResult.options`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveResultOrBuilder.optionsOrNull: ramino.v1.GameOuterClass.SeatOptions?
    get() = if (hasOptions()) getOptions() else null

/** `SeatOptions.turn`, or null when it is not set. */
public val ramino.v1.GameOuterClass.SeatOptionsOrBuilder.turnOrNull: Int?
    get() = if (hasTurn()) getTurn() else null

/** `SeatOptions.hint`, or null when it is not set. */
public val ramino.v1.GameOuterClass.SeatOptionsOrBuilder.hintOrNull: ramino.v1.GameOuterClass.Hint?
    get() = if (hasHint()) getHint() else null

/** `SeatOptions.view`, or null when it is not set. */
public val ramino.v1.GameOuterClass.SeatOptionsOrBuilder.viewOrNull: ramino.v1.GameOuterClass.GameView?
    get() = if (hasView()) getView() else null

/** `WatchGameRequest.afterVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.WatchGameRequestOrBuilder.afterVersionOrNull: Long?
    get() = if (hasAfterVersion()) getAfterVersion() else null

/** `WatchGameResponse.snapshot`, or null when it is not set. */
public val ramino.v1.GameOuterClass.WatchGameResponseOrBuilder.snapshotOrNull: ramino.v1.GameOuterClass.GameView?
    get() = if (hasSnapshot()) getSnapshot() else null

/** `WatchGameResponse.event`, or null when it is not set. */
public val ramino.v1.GameOuterClass.WatchGameResponseOrBuilder.eventOrNull: ramino.v1.GameOuterClass.GameEvent?
    get() = if (hasEvent()) getEvent() else null

/** `WatchGameResponse.events`, or null when it is not set. */
public val ramino.v1.GameOuterClass.WatchGameResponseOrBuilder.eventsOrNull: ramino.v1.GameOuterClass.GameEvents?
    get() = if (hasEvents()) getEvents() else null

/** `WatchGameResponse.options`, or null when it is not set. */
public val ramino.v1.GameOuterClass.WatchGameResponseOrBuilder.optionsOrNull: ramino.v1.GameOuterClass.SeatOptions?
    get() = if (hasOptions()) getOptions() else null

/** `PlayGameRequest.start`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.startOrNull: ramino.v1.GameOuterClass.PlayGameStart?
    get() = if (hasStart()) getStart() else null

/** `PlayGameRequest.drawFromStock`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.drawFromStockOrNull: ramino.v1.GameOuterClass.DrawFromStockRequest?
    get() = if (hasDrawFromStock()) getDrawFromStock() else null

/** `PlayGameRequest.takeDiscard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.takeDiscardOrNull: ramino.v1.GameOuterClass.TakeDiscardRequest?
    get() = if (hasTakeDiscard()) getTakeDiscard() else null

/** `PlayGameRequest.turnOverDiscardPile`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.turnOverDiscardPileOrNull: ramino.v1.GameOuterClass.TurnOverDiscardPileRequest?
    get() = if (hasTurnOverDiscardPile()) getTurnOverDiscardPile() else null

/** `PlayGameRequest.layMelds`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.layMeldsOrNull: ramino.v1.GameOuterClass.LayMeldsRequest?
    get() = if (hasLayMelds()) getLayMelds() else null

/** `PlayGameRequest.layOff`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.layOffOrNull: ramino.v1.GameOuterClass.LayOffRequest?
    get() = if (hasLayOff()) getLayOff() else null

/** `PlayGameRequest.swapJoker`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.swapJokerOrNull: ramino.v1.GameOuterClass.SwapJokerRequest?
    get() = if (hasSwapJoker()) getSwapJoker() else null

/** `PlayGameRequest.discard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.discardOrNull: ramino.v1.GameOuterClass.DiscardRequest?
    get() = if (hasDiscard()) getDiscard() else null

/** `PlayGameRequest.resign`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.resignOrNull: ramino.v1.GameOuterClass.ResignRequest?
    get() = if (hasResign()) getResign() else null

/** `PlayGameRequest.passUpcard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.passUpcardOrNull: ramino.v1.GameOuterClass.PassUpcardRequest?
    get() = if (hasPassUpcard()) getPassUpcard() else null

/** `PlayGameRequest.knock`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.knockOrNull: ramino.v1.GameOuterClass.KnockRequest?
    get() = if (hasKnock()) getKnock() else null

/** `PlayGameRequest.acceptLayout`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.acceptLayoutOrNull: ramino.v1.GameOuterClass.AcceptLayoutRequest?
    get() = if (hasAcceptLayout()) getAcceptLayout() else null

/** `PlayGameRequest.ask`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameRequestOrBuilder.askOrNull: ramino.v1.GameOuterClass.PlayGameAsk?
    get() = if (hasAsk()) getAsk() else null

/** `PlayGameStart.afterVersion`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameStartOrBuilder.afterVersionOrNull: Long?
    get() = if (hasAfterVersion()) getAfterVersion() else null

/** `PlayGameAsk.hints`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameAskOrBuilder.hintsOrNull: Boolean?
    get() = if (hasHints()) getHints() else null

/** `PlayGameAsk.answerViews`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameAskOrBuilder.answerViewsOrNull: Boolean?
    get() = if (hasAnswerViews()) getAnswerViews() else null

/** `PlayGameResponse.snapshot`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameResponseOrBuilder.snapshotOrNull: ramino.v1.GameOuterClass.GameView?
    get() = if (hasSnapshot()) getSnapshot() else null

/** `PlayGameResponse.event`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameResponseOrBuilder.eventOrNull: ramino.v1.GameOuterClass.GameEvent?
    get() = if (hasEvent()) getEvent() else null

/** `PlayGameResponse.answer`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameResponseOrBuilder.answerOrNull: ramino.v1.GameOuterClass.MoveAnswer?
    get() = if (hasAnswer()) getAnswer() else null

/** `PlayGameResponse.options`, or null when it is not set. */
public val ramino.v1.GameOuterClass.PlayGameResponseOrBuilder.optionsOrNull: ramino.v1.GameOuterClass.SeatOptions?
    get() = if (hasOptions()) getOptions() else null

/** `MoveAnswer.result`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveAnswerOrBuilder.resultOrNull: ramino.v1.GameOuterClass.MoveResult?
    get() = if (hasResult()) getResult() else null

/** `MoveAnswer.error`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveAnswerOrBuilder.errorOrNull: com.google.rpc.Status?
    get() = if (hasError()) getError() else null

/** `CancelGameResponse.view`, or null when it is not set. */
public val ramino.v1.GameOuterClass.CancelGameResponseOrBuilder.viewOrNull: ramino.v1.GameOuterClass.GameView?
    get() = if (hasView()) getView() else null

/** `GetLegalMovesResponse.hint`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GetLegalMovesResponseOrBuilder.hintOrNull: ramino.v1.GameOuterClass.Hint?
    get() = if (hasHint()) getHint() else null

/** `GetLegalMovesResponse.options`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GetLegalMovesResponseOrBuilder.optionsOrNull: ramino.v1.GameOuterClass.SeatOptions?
    get() = if (hasOptions()) getOptions() else null

/** `Move.drawFromStock`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.drawFromStockOrNull: ramino.v1.GameOuterClass.DrawFromStockMove?
    get() = if (hasDrawFromStock()) getDrawFromStock() else null

/** `Move.takeDiscard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.takeDiscardOrNull: ramino.v1.GameOuterClass.TakeDiscardMove?
    get() = if (hasTakeDiscard()) getTakeDiscard() else null

/** `Move.turnOverDiscardPile`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.turnOverDiscardPileOrNull: ramino.v1.GameOuterClass.TurnOverDiscardPileMove?
    get() = if (hasTurnOverDiscardPile()) getTurnOverDiscardPile() else null

/** `Move.layMelds`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.layMeldsOrNull: ramino.v1.GameOuterClass.LayMeldsMove?
    get() = if (hasLayMelds()) getLayMelds() else null

/** `Move.layOff`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.layOffOrNull: ramino.v1.GameOuterClass.LayOffMove?
    get() = if (hasLayOff()) getLayOff() else null

/** `Move.swapJoker`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.swapJokerOrNull: ramino.v1.GameOuterClass.SwapJokerMove?
    get() = if (hasSwapJoker()) getSwapJoker() else null

/** `Move.discard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.discardOrNull: ramino.v1.GameOuterClass.DiscardMove?
    get() = if (hasDiscard()) getDiscard() else null

/** `Move.resign`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.resignOrNull: ramino.v1.GameOuterClass.ResignMove?
    get() = if (hasResign()) getResign() else null

/** `Move.passUpcard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.passUpcardOrNull: ramino.v1.GameOuterClass.PassUpcardMove?
    get() = if (hasPassUpcard()) getPassUpcard() else null

/** `Move.knock`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.knockOrNull: ramino.v1.GameOuterClass.KnockMove?
    get() = if (hasKnock()) getKnock() else null

/** `Move.acceptLayout`, or null when it is not set. */
public val ramino.v1.GameOuterClass.MoveOrBuilder.acceptLayoutOrNull: ramino.v1.GameOuterClass.AcceptLayoutMove?
    get() = if (hasAcceptLayout()) getAcceptLayout() else null

/** `KnockMove.discardCardId`, or null when it is not set. */
public val ramino.v1.GameOuterClass.KnockMoveOrBuilder.discardCardIdOrNull: Int?
    get() = if (hasDiscardCardId()) getDiscardCardId() else null

/** `Hint.bestOpening`, or null when it is not set. */
public val ramino.v1.GameOuterClass.HintOrBuilder.bestOpeningOrNull: ramino.v1.Types.Opening?
    get() = if (hasBestOpening()) getBestOpening() else null

/** `Hint.minDeadwood`, or null when it is not set. */
public val ramino.v1.GameOuterClass.HintOrBuilder.minDeadwoodOrNull: ramino.v1.Types.Deadwood?
    get() = if (hasMinDeadwood()) getMinDeadwood() else null

/** `Hint.suggestedDiscard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.HintOrBuilder.suggestedDiscardOrNull: ramino.v1.Types.Card?
    get() = if (hasSuggestedDiscard()) getSuggestedDiscard() else null

/** `Hint.bestKnock`, or null when it is not set. */
public val ramino.v1.GameOuterClass.HintOrBuilder.bestKnockOrNull: ramino.v1.GameOuterClass.KnockMove?
    get() = if (hasBestKnock()) getBestKnock() else null

/** `Hint.suggestedMove`, or null when it is not set. */
public val ramino.v1.GameOuterClass.HintOrBuilder.suggestedMoveOrNull: ramino.v1.GameOuterClass.Move?
    get() = if (hasSuggestedMove()) getSuggestedMove() else null

/** `GameView.variant`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameViewOrBuilder.variantOrNull: ramino.v1.Types.Variant?
    get() = if (hasVariant()) getVariant() else null

/** `GameView.seat`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameViewOrBuilder.seatOrNull: Int?
    get() = if (hasSeat()) getSeat() else null

/** `GameView.turn`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameViewOrBuilder.turnOrNull: Int?
    get() = if (hasTurn()) getTurn() else null

/** `GameView.turnDeadline`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameViewOrBuilder.turnDeadlineOrNull: com.google.protobuf.Timestamp?
    get() = if (hasTurnDeadline()) getTurnDeadline() else null

/** `GameView.knocker`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameViewOrBuilder.knockerOrNull: Int?
    get() = if (hasKnocker()) getKnocker() else null

/** `RoundScores.winner`, or null when it is not set. */
public val ramino.v1.GameOuterClass.RoundScoresOrBuilder.winnerOrNull: Int?
    get() = if (hasWinner()) getWinner() else null

/** `TableMeld.meld`, or null when it is not set. */
public val ramino.v1.GameOuterClass.TableMeldOrBuilder.meldOrNull: ramino.v1.Types.Meld?
    get() = if (hasMeld()) getMeld() else null

/** `GameEvent.seat`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.seatOrNull: Int?
    get() = if (hasSeat()) getSeat() else null

/** `GameEvent.turn`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.turnOrNull: Int?
    get() = if (hasTurn()) getTurn() else null

/** `GameEvent.gameCreated`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.gameCreatedOrNull: ramino.v1.GameOuterClass.GameCreated?
    get() = if (hasGameCreated()) getGameCreated() else null

/** `GameEvent.seatJoined`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.seatJoinedOrNull: ramino.v1.GameOuterClass.SeatJoined?
    get() = if (hasSeatJoined()) getSeatJoined() else null

/** `GameEvent.seatTimedOut`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.seatTimedOutOrNull: ramino.v1.GameOuterClass.SeatTimedOut?
    get() = if (hasSeatTimedOut()) getSeatTimedOut() else null

/** `GameEvent.seatReclaimed`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.seatReclaimedOrNull: ramino.v1.GameOuterClass.SeatReclaimed?
    get() = if (hasSeatReclaimed()) getSeatReclaimed() else null

/** `GameEvent.gameEnded`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.gameEndedOrNull: ramino.v1.GameOuterClass.GameEnded?
    get() = if (hasGameEnded()) getGameEnded() else null

/** `GameEvent.roundStarted`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.roundStartedOrNull: ramino.v1.GameOuterClass.RoundStarted?
    get() = if (hasRoundStarted()) getRoundStarted() else null

/** `GameEvent.drewFromStock`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.drewFromStockOrNull: ramino.v1.GameOuterClass.DrewFromStock?
    get() = if (hasDrewFromStock()) getDrewFromStock() else null

/** `GameEvent.tookDiscard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.tookDiscardOrNull: ramino.v1.GameOuterClass.TookDiscard?
    get() = if (hasTookDiscard()) getTookDiscard() else null

/** `GameEvent.discardPileTurnedOver`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.discardPileTurnedOverOrNull: ramino.v1.GameOuterClass.DiscardPileTurnedOver?
    get() = if (hasDiscardPileTurnedOver()) getDiscardPileTurnedOver() else null

/** `GameEvent.stockReshuffled`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.stockReshuffledOrNull: ramino.v1.GameOuterClass.StockReshuffled?
    get() = if (hasStockReshuffled()) getStockReshuffled() else null

/** `GameEvent.meldsLaid`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.meldsLaidOrNull: ramino.v1.GameOuterClass.MeldsLaid?
    get() = if (hasMeldsLaid()) getMeldsLaid() else null

/** `GameEvent.laidOff`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.laidOffOrNull: ramino.v1.GameOuterClass.LaidOff?
    get() = if (hasLaidOff()) getLaidOff() else null

/** `GameEvent.jokerSwapped`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.jokerSwappedOrNull: ramino.v1.GameOuterClass.JokerSwapped?
    get() = if (hasJokerSwapped()) getJokerSwapped() else null

/** `GameEvent.discarded`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.discardedOrNull: ramino.v1.GameOuterClass.Discarded?
    get() = if (hasDiscarded()) getDiscarded() else null

/** `GameEvent.resigned`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.resignedOrNull: ramino.v1.GameOuterClass.Resigned?
    get() = if (hasResigned()) getResigned() else null

/** `GameEvent.passedUpcard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.passedUpcardOrNull: ramino.v1.GameOuterClass.PassedUpcard?
    get() = if (hasPassedUpcard()) getPassedUpcard() else null

/** `GameEvent.knocked`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.knockedOrNull: ramino.v1.GameOuterClass.Knocked?
    get() = if (hasKnocked()) getKnocked() else null

/** `GameEvent.layoutAccepted`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.layoutAcceptedOrNull: ramino.v1.GameOuterClass.LayoutAccepted?
    get() = if (hasLayoutAccepted()) getLayoutAccepted() else null

/** `GameEvent.roundEnded`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.roundEndedOrNull: ramino.v1.GameOuterClass.RoundEnded?
    get() = if (hasRoundEnded()) getRoundEnded() else null

/** `GameEvent.matchEnded`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameEventOrBuilder.matchEndedOrNull: ramino.v1.GameOuterClass.MatchEnded?
    get() = if (hasMatchEnded()) getMatchEnded() else null

/** `GameCreated.overrides`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameCreatedOrBuilder.overridesOrNull: ramino.v1.Types.VariantParameters?
    get() = if (hasOverrides()) getOverrides() else null

/** `GameCreated.createTime`, or null when it is not set. */
public val ramino.v1.GameOuterClass.GameCreatedOrBuilder.createTimeOrNull: com.google.protobuf.Timestamp?
    get() = if (hasCreateTime()) getCreateTime() else null

/** `RoundStarted.upcard`, or null when it is not set. */
public val ramino.v1.GameOuterClass.RoundStartedOrBuilder.upcardOrNull: Int?
    get() = if (hasUpcard()) getUpcard() else null

/** `DrewFromStock.cardId`, or null when it is not set. */
public val ramino.v1.GameOuterClass.DrewFromStockOrBuilder.cardIdOrNull: Int?
    get() = if (hasCardId()) getCardId() else null

/** `LaidOff.described`, or null when it is not set. */
public val ramino.v1.GameOuterClass.LaidOffOrBuilder.describedOrNull: ramino.v1.Types.MeldDescription?
    get() = if (hasDescribed()) getDescribed() else null

/** `JokerSwapped.described`, or null when it is not set. */
public val ramino.v1.GameOuterClass.JokerSwappedOrBuilder.describedOrNull: ramino.v1.Types.MeldDescription?
    get() = if (hasDescribed()) getDescribed() else null

/** `Knocked.discardCardId`, or null when it is not set. */
public val ramino.v1.GameOuterClass.KnockedOrBuilder.discardCardIdOrNull: Int?
    get() = if (hasDiscardCardId()) getDiscardCardId() else null

/** `RoundEnded.winner`, or null when it is not set. */
public val ramino.v1.GameOuterClass.RoundEndedOrBuilder.winnerOrNull: Int?
    get() = if (hasWinner()) getWinner() else null

/** `ScorePart.seat`, or null when it is not set. */
public val ramino.v1.GameOuterClass.ScorePartOrBuilder.seatOrNull: Int?
    get() = if (hasSeat()) getSeat() else null

/** `Card.id`, or null when it is not set. */
public val ramino.v1.Types.CardOrBuilder.idOrNull: Int?
    get() = if (hasId()) getId() else null

/** `Variant.parameters`, or null when it is not set. */
public val ramino.v1.Types.VariantOrBuilder.parametersOrNull: ramino.v1.Types.VariantParameters?
    get() = if (hasParameters()) getParameters() else null

/** `VariantParameters.minPlayers`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.minPlayersOrNull: Int?
    get() = if (hasMinPlayers()) getMinPlayers() else null

/** `VariantParameters.maxPlayers`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.maxPlayersOrNull: Int?
    get() = if (hasMaxPlayers()) getMaxPlayers() else null

/** `VariantParameters.packs`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.packsOrNull: Int?
    get() = if (hasPacks()) getPacks() else null

/** `VariantParameters.jokers`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.jokersOrNull: Int?
    get() = if (hasJokers()) getJokers() else null

/** `VariantParameters.firstPlayerExtraCards`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.firstPlayerExtraCardsOrNull: Int?
    get() = if (hasFirstPlayerExtraCards()) getFirstPlayerExtraCards() else null

/** `VariantParameters.firstTurnDraws`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.firstTurnDrawsOrNull: Boolean?
    get() = if (hasFirstTurnDraws()) getFirstTurnDraws() else null

/** `VariantParameters.upcard`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.upcardOrNull: Boolean?
    get() = if (hasUpcard()) getUpcard() else null

/** `VariantParameters.aceHigh`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.aceHighOrNull: Boolean?
    get() = if (hasAceHigh()) getAceHigh() else null

/** `VariantParameters.maxJokersPerMeld`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.maxJokersPerMeldOrNull: Int?
    get() = if (hasMaxJokersPerMeld()) getMaxJokersPerMeld() else null

/** `VariantParameters.aceLowValue`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.aceLowValueOrNull: Int?
    get() = if (hasAceLowValue()) getAceLowValue() else null

/** `VariantParameters.aceLowValueWithAceHigh`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.aceLowValueWithAceHighOrNull: Int?
    get() = if (hasAceLowValueWithAceHigh()) getAceLowValueWithAceHigh() else null

/** `VariantParameters.aceHighValue`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.aceHighValueOrNull: Int?
    get() = if (hasAceHighValue()) getAceHighValue() else null

/** `VariantParameters.acePenalty`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.acePenaltyOrNull: Int?
    get() = if (hasAcePenalty()) getAcePenalty() else null

/** `VariantParameters.aceHighPenalty`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.aceHighPenaltyOrNull: Int?
    get() = if (hasAceHighPenalty()) getAceHighPenalty() else null

/** `VariantParameters.jokerPenalty`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.jokerPenaltyOrNull: Int?
    get() = if (hasJokerPenalty()) getJokerPenalty() else null

/** `VariantParameters.openThreshold`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.openThresholdOrNull: Int?
    get() = if (hasOpenThreshold()) getOpenThreshold() else null

/** `VariantParameters.openRequiresPureRun`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.openRequiresPureRunOrNull: Boolean?
    get() = if (hasOpenRequiresPureRun()) getOpenRequiresPureRun() else null

/** `VariantParameters.layoffOnOpeningTurn`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.layoffOnOpeningTurnOrNull: Boolean?
    get() = if (hasLayoffOnOpeningTurn()) getLayoffOnOpeningTurn() else null

/** `VariantParameters.discardTakeRequiresOpen`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.discardTakeRequiresOpenOrNull: Boolean?
    get() = if (hasDiscardTakeRequiresOpen()) getDiscardTakeRequiresOpen() else null

/** `VariantParameters.jokerSwap`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.jokerSwapOrNull: Boolean?
    get() = if (hasJokerSwap()) getJokerSwap() else null

/** `VariantParameters.mustDiscardToGoOut`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.mustDiscardToGoOutOrNull: Boolean?
    get() = if (hasMustDiscardToGoOut()) getMustDiscardToGoOut() else null

/** `VariantParameters.scoring`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.scoringOrNull: ramino.v1.Types.Scoring?
    get() = if (hasScoring()) getScoring() else null

/** `VariantParameters.winnerScore`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.winnerScoreOrNull: Int?
    get() = if (hasWinnerScore()) getWinnerScore() else null

/** `VariantParameters.closedHandScore`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.closedHandScoreOrNull: Int?
    get() = if (hasClosedHandScore()) getClosedHandScore() else null

/** `VariantParameters.closedHandMultiplier`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.closedHandMultiplierOrNull: Int?
    get() = if (hasClosedHandMultiplier()) getClosedHandMultiplier() else null

/** `VariantParameters.neverOpenedPenalty`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.neverOpenedPenaltyOrNull: Int?
    get() = if (hasNeverOpenedPenalty()) getNeverOpenedPenalty() else null

/** `VariantParameters.rummyMultiplier`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.rummyMultiplierOrNull: Int?
    get() = if (hasRummyMultiplier()) getRummyMultiplier() else null

/** `VariantParameters.stockExhausted`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.stockExhaustedOrNull: ramino.v1.Types.StockExhausted?
    get() = if (hasStockExhausted()) getStockExhausted() else null

/** `VariantParameters.maxStockRebuilds`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.maxStockRebuildsOrNull: Int?
    get() = if (hasMaxStockRebuilds()) getMaxStockRebuilds() else null

/** `VariantParameters.winnerDeals`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.winnerDealsOrNull: Boolean?
    get() = if (hasWinnerDeals()) getWinnerDeals() else null

/** `VariantParameters.targetScore`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.targetScoreOrNull: Int?
    get() = if (hasTargetScore()) getTargetScore() else null

/** `VariantParameters.maxRounds`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.maxRoundsOrNull: Int?
    get() = if (hasMaxRounds()) getMaxRounds() else null

/** `VariantParameters.maxTurnsPerRound`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.maxTurnsPerRoundOrNull: Int?
    get() = if (hasMaxTurnsPerRound()) getMaxTurnsPerRound() else null

/** `VariantParameters.knocking`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.knockingOrNull: Boolean?
    get() = if (hasKnocking()) getKnocking() else null

/** `VariantParameters.knockCard`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.knockCardOrNull: Int?
    get() = if (hasKnockCard()) getKnockCard() else null

/** `VariantParameters.ginBonus`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.ginBonusOrNull: Int?
    get() = if (hasGinBonus()) getGinBonus() else null

/** `VariantParameters.bigGin`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.bigGinOrNull: Boolean?
    get() = if (hasBigGin()) getBigGin() else null

/** `VariantParameters.bigGinBonus`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.bigGinBonusOrNull: Int?
    get() = if (hasBigGinBonus()) getBigGinBonus() else null

/** `VariantParameters.undercutBonus`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.undercutBonusOrNull: Int?
    get() = if (hasUndercutBonus()) getUndercutBonus() else null

/** `VariantParameters.wallStockSize`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.wallStockSizeOrNull: Int?
    get() = if (hasWallStockSize()) getWallStockSize() else null

/** `VariantParameters.gameBonus`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.gameBonusOrNull: Int?
    get() = if (hasGameBonus()) getGameBonus() else null

/** `VariantParameters.boxBonus`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.boxBonusOrNull: Int?
    get() = if (hasBoxBonus()) getBoxBonus() else null

/** `VariantParameters.shutoutMultiplier`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.shutoutMultiplierOrNull: Int?
    get() = if (hasShutoutMultiplier()) getShutoutMultiplier() else null

/** `VariantParameters.sameDealerAfterDraw`, or null when it is not set. */
public val ramino.v1.Types.VariantParametersOrBuilder.sameDealerAfterDrawOrNull: Boolean?
    get() = if (hasSameDealerAfterDraw()) getSameDealerAfterDraw() else null

/** `LayOffTarget.card`, or null when it is not set. */
public val ramino.v1.Types.LayOffTargetOrBuilder.cardOrNull: ramino.v1.Types.Card?
    get() = if (hasCard()) getCard() else null

/** `JokerSwapTarget.card`, or null when it is not set. */
public val ramino.v1.Types.JokerSwapTargetOrBuilder.cardOrNull: ramino.v1.Types.Card?
    get() = if (hasCard()) getCard() else null

/** `ValidateMeldRequest.overrides`, or null when it is not set. */
public val ramino.v1.Rules.ValidateMeldRequestOrBuilder.overridesOrNull: ramino.v1.Types.VariantParameters?
    get() = if (hasOverrides()) getOverrides() else null

/** `ValidateMeldResponse.meld`, or null when it is not set. */
public val ramino.v1.Rules.ValidateMeldResponseOrBuilder.meldOrNull: ramino.v1.Types.Meld?
    get() = if (hasMeld()) getMeld() else null

/** `AnalyzeHandRequest.overrides`, or null when it is not set. */
public val ramino.v1.Rules.AnalyzeHandRequestOrBuilder.overridesOrNull: ramino.v1.Types.VariantParameters?
    get() = if (hasOverrides()) getOverrides() else null

/** `AnalyzeHandResponse.bestOpening`, or null when it is not set. */
public val ramino.v1.Rules.AnalyzeHandResponseOrBuilder.bestOpeningOrNull: ramino.v1.Types.Opening?
    get() = if (hasBestOpening()) getBestOpening() else null

/** `AnalyzeHandResponse.minDeadwood`, or null when it is not set. */
public val ramino.v1.Rules.AnalyzeHandResponseOrBuilder.minDeadwoodOrNull: ramino.v1.Types.Deadwood?
    get() = if (hasMinDeadwood()) getMinDeadwood() else null

/** `TicketUpdate.submitTime`, or null when it is not set. */
public val ramino.v1.Match.TicketUpdateOrBuilder.submitTimeOrNull: com.google.protobuf.Timestamp?
    get() = if (hasSubmitTime()) getSubmitTime() else null

/** `SubmitTicketRequest.overrides`, or null when it is not set. */
public val ramino.v1.Match.SubmitTicketRequestOrBuilder.overridesOrNull: ramino.v1.Types.VariantParameters?
    get() = if (hasOverrides()) getOverrides() else null

/** `MatchClause.anyOf`, or null when it is not set. */
public val ramino.v1.Match.MatchClauseOrBuilder.anyOfOrNull: ramino.v1.Match.StringSet?
    get() = if (hasAnyOf()) getAnyOf() else null

/** `MatchClause.range`, or null when it is not set. */
public val ramino.v1.Match.MatchClauseOrBuilder.rangeOrNull: ramino.v1.Match.NumberRange?
    get() = if (hasRange()) getRange() else null

/** `NumberRange.min`, or null when it is not set. */
public val ramino.v1.Match.NumberRangeOrBuilder.minOrNull: Double?
    get() = if (hasMin()) getMin() else null

/** `NumberRange.max`, or null when it is not set. */
public val ramino.v1.Match.NumberRangeOrBuilder.maxOrNull: Double?
    get() = if (hasMax()) getMax() else null

/** `SubmitTicketResponse.update`, or null when it is not set. */
public val ramino.v1.Match.SubmitTicketResponseOrBuilder.updateOrNull: ramino.v1.Match.TicketUpdate?
    get() = if (hasUpdate()) getUpdate() else null

/** `WatchTicketResponse.update`, or null when it is not set. */
public val ramino.v1.Match.WatchTicketResponseOrBuilder.updateOrNull: ramino.v1.Match.TicketUpdate?
    get() = if (hasUpdate()) getUpdate() else null

/** `CancelTicketResponse.update`, or null when it is not set. */
public val ramino.v1.Match.CancelTicketResponseOrBuilder.updateOrNull: ramino.v1.Match.TicketUpdate?
    get() = if (hasUpdate()) getUpdate() else null

/** `GetRatingResponse.rating`, or null when it is not set. */
public val ramino.v1.Match.GetRatingResponseOrBuilder.ratingOrNull: ramino.v1.Match.Rating?
    get() = if (hasRating()) getRating() else null

/** `LeaderboardEntry.rating`, or null when it is not set. */
public val ramino.v1.Match.LeaderboardEntryOrBuilder.ratingOrNull: ramino.v1.Match.Rating?
    get() = if (hasRating()) getRating() else null

/** `PlayerGame.finishTime`, or null when it is not set. */
public val ramino.v1.Match.PlayerGameOrBuilder.finishTimeOrNull: com.google.protobuf.Timestamp?
    get() = if (hasFinishTime()) getFinishTime() else null

/** `PlayerGame.ratingBefore`, or null when it is not set. */
public val ramino.v1.Match.PlayerGameOrBuilder.ratingBeforeOrNull: ramino.v1.Match.Rating?
    get() = if (hasRatingBefore()) getRatingBefore() else null

/** `PlayerGame.ratingAfter`, or null when it is not set. */
public val ramino.v1.Match.PlayerGameOrBuilder.ratingAfterOrNull: ramino.v1.Match.Rating?
    get() = if (hasRatingAfter()) getRatingAfter() else null

/** `GetGameRecordResponse.parameters`, or null when it is not set. */
public val ramino.v1.Match.GetGameRecordResponseOrBuilder.parametersOrNull: ramino.v1.Types.VariantParameters?
    get() = if (hasParameters()) getParameters() else null

/** `Party.leader`, or null when it is not set. */
public val ramino.v1.Match.PartyOrBuilder.leaderOrNull: ramino.v1.Match.PartyMember?
    get() = if (hasLeader()) getLeader() else null

/** `Party.expireTime`, or null when it is not set. */
public val ramino.v1.Match.PartyOrBuilder.expireTimeOrNull: com.google.protobuf.Timestamp?
    get() = if (hasExpireTime()) getExpireTime() else null

/** `CreatePartyResponse.party`, or null when it is not set. */
public val ramino.v1.Match.CreatePartyResponseOrBuilder.partyOrNull: ramino.v1.Match.Party?
    get() = if (hasParty()) getParty() else null

/** `InviteToPartyResponse.expireTime`, or null when it is not set. */
public val ramino.v1.Match.InviteToPartyResponseOrBuilder.expireTimeOrNull: com.google.protobuf.Timestamp?
    get() = if (hasExpireTime()) getExpireTime() else null

/** `JoinPartyResponse.party`, or null when it is not set. */
public val ramino.v1.Match.JoinPartyResponseOrBuilder.partyOrNull: ramino.v1.Match.Party?
    get() = if (hasParty()) getParty() else null

/** `GetPartyResponse.party`, or null when it is not set. */
public val ramino.v1.Match.GetPartyResponseOrBuilder.partyOrNull: ramino.v1.Match.Party?
    get() = if (hasParty()) getParty() else null
