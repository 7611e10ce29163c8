package dev.ramino.client

import io.grpc.CallOptions
import io.grpc.Channel
import io.grpc.ChannelCredentials
import io.grpc.InsecureChannelCredentials
import io.grpc.ManagedChannel
import io.grpc.ManagedChannelBuilder
import io.grpc.Metadata
import io.grpc.MethodDescriptor
import io.grpc.Status
import io.grpc.TlsChannelCredentials
import io.grpc.kotlin.ClientCalls
import io.grpc.okhttp.OkHttpChannelBuilder
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.catch
import kotlinx.coroutines.flow.emitAll
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.withContext
import ramino.v1.GameOuterClass.CancelGameRequest
import ramino.v1.GameOuterClass.CreateGameRequest
import ramino.v1.GameOuterClass.GetGameRequest
import ramino.v1.GameOuterClass.JoinGameRequest
import ramino.v1.GameOuterClass.ListGamesRequest
import ramino.v1.GameServiceGrpc
import ramino.v1.Rules.AnalyzeHandRequest
import ramino.v1.Rules.AnalyzeHandResponse
import ramino.v1.Rules.ListBotLevelsRequest
import ramino.v1.Rules.ListVariantsRequest
import ramino.v1.Rules.MeldCodes
import ramino.v1.Rules.ValidateMeldRequest
import ramino.v1.Rules.ValidateMeldResponse
import ramino.v1.RulesServiceGrpc
import ramino.v1.Types.Variant
import java.io.ByteArrayInputStream
import java.io.Closeable
import java.security.SecureRandom
import java.util.Base64
import java.util.concurrent.TimeUnit
import kotlin.time.Duration
import kotlin.time.Duration.Companion.seconds

/** The metadata the SDK sends. */
public object Headers {
    /** Scopes the request ids of CreateGame and JoinGame: a retry from the same key gets the first answer. */
    public const val CALLER_KEY: String = "ramino-caller-key"

    /** The host's player token, where the server asks for one. */
    public const val PLAYER_TOKEN: String = "ramino-player-token"

    /** "Bearer <seat or creator token>". */
    public const val AUTHORIZATION: String = "authorization"

    internal val callerKey: Metadata.Key<String> = Metadata.Key.of(CALLER_KEY, Metadata.ASCII_STRING_MARSHALLER)
    internal val playerToken: Metadata.Key<String> = Metadata.Key.of(PLAYER_TOKEN, Metadata.ASCII_STRING_MARSHALLER)
    internal val authorization: Metadata.Key<String> = Metadata.Key.of(AUTHORIZATION, Metadata.ASCII_STRING_MARSHALLER)
}

/**
 * TLS to the server. Without [trustCertificatesPem] the platform's trust
 * store checks the server's certificate; with it, only those PEM
 * certificates do. [clientCertificatePem] and [clientKeyPem] (PKCS#8 PEM)
 * present a client certificate (mutual TLS). [authority] overrides the name
 * checked against the certificate (and sent as :authority).
 */
public class Tls(
    public val trustCertificatesPem: ByteArray? = null,
    public val clientCertificatePem: ByteArray? = null,
    public val clientKeyPem: ByteArray? = null,
    public val authority: String? = null,
) {
    init {
        require((clientCertificatePem == null) == (clientKeyPem == null)) {
            "Tls: clientCertificatePem and clientKeyPem go together"
        }
    }

    internal fun credentials(): ChannelCredentials {
        val b = TlsChannelCredentials.newBuilder()
        trustCertificatesPem?.let { b.trustManager(ByteArrayInputStream(it)) }
        if (clientCertificatePem != null && clientKeyPem != null) {
            b.keyManager(ByteArrayInputStream(clientCertificatePem), ByteArrayInputStream(clientKeyPem))
        }
        return b.build()
    }
}

/**
 * How a [RaminoClient] talks to the server.
 *
 * @property timeout of each attempt of a unary call (watches have none).
 * @property retry on UNAVAILABLE and a server's CANCELLED, with the same request.
 * @property callerKey sent on every call; a random one when null. Give the
 *   same key to a client that must see another's CreateGame/JoinGame
 *   request ids as its own (a process restarted with the key it saved).
 * @property playerToken the host's player token (`ramino-player-token`), when it asks for one.
 * @property tls null for plaintext (a server on loopback or behind a TLS proxy).
 * @property loadBalancing the channel's policy ("round_robin" spreads calls over every
 *   address a name resolves to, as for a headless Kubernetes service); null for grpc's default.
 * @property configure a last say on the channel builder (keepalive, executors, interceptors).
 * @property onRetry told before each retry.
 * @property streamsPerConnection the most streams (watches, sessions, ticket waits) one
 *   connection carries before the client opens another to the same target: the server
 *   allows 100 a connection by default (`--max-streams-per-connection`), and lets go of a
 *   closed stream a moment after the client. A client made on a caller's [Channel] puts
 *   every stream on it.
 */
public data class ClientOptions(
    val timeout: Duration = 10.seconds,
    val retry: RetryPolicy = RetryPolicy.DEFAULT,
    val callerKey: String? = null,
    val playerToken: String? = null,
    val tls: Tls? = null,
    val loadBalancing: String? = "round_robin",
    val configure: ((ManagedChannelBuilder<*>) -> Unit)? = null,
    val onRetry: ((RetryEvent) -> Unit)? = null,
    val streamsPerConnection: Int = DEFAULT_STREAMS_PER_CONNECTION,
)

/** The streams one connection carries by default before a client opens another. */
public const val DEFAULT_STREAMS_PER_CONNECTION: Int = 50

/** A seat asked for at creation: a person (by name; "" for anyone) or a server bot. */
public fun person(name: String): SeatConfig = SeatConfig.newBuilder().setPlayerName(name).build()

/** A server bot of [level]. */
public fun bot(level: BotLevel): SeatConfig = SeatConfig.newBuilder().setBot(level).build()

/** The server's greedy bot. */
public fun greedyBot(): SeatConfig = bot(BotLevel.BOT_LEVEL_GREEDY)

/** The server's random bot. */
public fun randomBot(): SeatConfig = bot(BotLevel.BOT_LEVEL_RANDOM)

/**
 * What [RaminoClient.createGame] makes. [requestId]: a retry with the same one returns the first game.
 * [private]: never listed, no spectators, joined with the [CreatedGame.inviteCode] the creator shares
 * ([RaminoClient.joinInvite]); [rated]: its end changes its players' ratings as quick play's do (a
 * server that knows players, no bot seat, a turn timer); [quickPlay]: quick-play tickets of its queue may take its
 * open seats (a public game).
 */
public data class GameSpec(
    val variant: String,
    val seats: List<SeatConfig>,
    val overrides: VariantParameters? = null,
    val turnTimerSeconds: Int = 0,
    val spectatorsDisabled: Boolean = false,
    val requestId: String? = null,
    val private: Boolean = false,
    val rated: Boolean = false,
    val quickPlay: Boolean = false,
)

/**
 * A game made by [RaminoClient.createGame], with the token that cancels it and, for a private game,
 * its invite code ("" for a public one): share it, or its [inviteLink]; it opens the game until the
 * game is dealt.
 */
public data class CreatedGame(val game: Game, val creatorToken: String, val inviteCode: String = "") {
    /** "games/{id}". */
    public val name: String get() = game.name

    /** Never listed; joined by invite only. */
    public val private: Boolean get() = game.visibility == Visibility.VISIBILITY_PRIVATE
}

/** How a link carries an invite code: `BASE#invite=CODE` (or `?invite=`). */
private const val INVITE_MARK = "invite="

/** The link that opens a private game's invite: `baseUrl#invite=CODE` (the web page joins the game it opens). */
public fun inviteLink(baseUrl: String, inviteCode: String): String =
    baseUrl.substringBefore('#') + "#" + INVITE_MARK + inviteCode

/** The invite code in [codeOrLink]: a code as it is, or the code of a link made by [inviteLink]. */
public fun inviteCodeOf(codeOrLink: String): String {
    val text = codeOrLink.trim()
    for (mark in listOf("#", "?", "&")) {
        val at = text.indexOf(mark + INVITE_MARK)
        if (at >= 0) return text.substring(at + mark.length + INVITE_MARK.length).substringBefore('&')
    }
    return text
}

/** Which games [RaminoClient.listGames] yields. */
public data class ListFilter(
    val variant: String = "",
    val openSeatsOnly: Boolean = false,
    val status: GameStatus = GameStatus.GAME_STATUS_UNSPECIFIED,
    val pageSize: Int = 50,
)

/**
 * A client of a Ramino server: the lobby, seats ([joinGame]), spectators'
 * views and watches, and the stateless rules. Every call carries the
 * client's caller key; unary calls are retried on UNAVAILABLE and on a
 * CANCELLED the server sent, with the same request (a move's request id
 * included); refusals are [RaminoException]s.
 */
public class RaminoClient private constructor(
    private val owned: ManagedChannel?,
    public val channel: Channel,
    public val options: ClientOptions,
    target: String?,
) : Closeable {
    /** A client of the server at [target] ("host:port", or any grpc target such as "dns:///name:port"), over OkHttp. */
    public constructor(target: String, options: ClientOptions = ClientOptions()) :
        this(open(target, options), options, target)

    private constructor(channel: ManagedChannel, options: ClientOptions, target: String) :
        this(channel, channel, options, target)

    init {
        require(options.streamsPerConnection >= 1) {
            "RaminoClient: streamsPerConnection is at least 1, not ${options.streamsPerConnection}"
        }
    }

    /** The connections its streams go on: the first is [channel], more opened as they fill. */
    internal val streams: StreamChannels =
        StreamChannels(channel, target?.let { t -> { open(t, options) } }, options.streamsPerConnection)

    /** The caller key this client sends. */
    public val callerKey: String = options.callerKey ?: newCallerKey()

    private val closing = CompletableDeferred<Unit>()

    /** Quick play: tickets, ratings, leaderboards, histories and game records (needs [ClientOptions.playerToken]). */
    public val quick: Quick = Quick(this)

    /** Whether [close] was called. */
    public val isClosed: Boolean get() = closing.isCompleted

    /**
     * Closes the client without blocking: its calls in flight are cancelled,
     * its watches and sessions being collected end (their flows complete,
     * without an error), and the channel shuts down in the background (a
     * client made on a caller's [Channel] leaves it open). A call made after
     * it fails at once, with no retry. [closeAndWait] also waits for the
     * channel to terminate.
     */
    override fun close() {
        closing.complete(Unit)
        owned?.shutdownNow()
        streams.shutdownNow()
    }

    /** [close], then suspends (no thread blocked) until the channels have terminated, at most [timeout]. */
    public suspend fun closeAndWait(timeout: Duration = 5.seconds) {
        close()
        val channels = listOfNotNull(owned) + streams.opened()
        withContext(Dispatchers.IO) {
            val until = System.nanoTime() + timeout.inWholeNanoseconds
            for (c in channels) c.awaitTermination(maxOf(0L, until - System.nanoTime()), TimeUnit.NANOSECONDS)
        }
    }

    /** Completes when [close] is called: what a watch or session being collected ends on. */
    internal suspend fun awaitClose() {
        closing.await()
    }

    internal fun headers(token: String?): Metadata {
        val md = Metadata()
        md.put(Headers.callerKey, callerKey)
        options.playerToken?.takeIf { it.isNotEmpty() }?.let { md.put(Headers.playerToken, it) }
        token?.takeIf { it.isNotEmpty() }?.let { md.put(Headers.authorization, "Bearer $it") }
        return md
    }

    private fun callOptions(): CallOptions {
        val ms = options.timeout.inWholeMilliseconds
        return if (ms > 0) CallOptions.DEFAULT.withDeadlineAfter(ms, TimeUnit.MILLISECONDS) else CallOptions.DEFAULT
    }

    /**
     * One unary call of any method of the API, with the client's identity,
     * [token] as the bearer (seat or creator token; null for none), its
     * timeout and retries: the layer under every method of the SDK, for
     * anything it leaves out.
     */
    public suspend fun <Req : Any, Resp : Any> call(method: MethodDescriptor<Req, Resp>, request: Req, token: String? = null): Resp {
        val delays = options.retry.delays()
        var attempt = 1
        while (true) {
            val failure = try {
                return ClientCalls.unaryRpc(channel, method, request, callOptions(), headers(token))
            } catch (e: Exception) {
                RaminoException.from(e) ?: throw e
            }
            currentCoroutineContext().ensureActive() // the caller's own cancel is not retried
            val wait = if (retryable(failure.code) && !isClosed) delays.next() else null
            if (wait == null) throw failure
            options.onRetry?.invoke(RetryEvent(method.fullMethodName, attempt, failure))
            delay(wait)
            attempt++
        }
    }

    /** A server stream of any method, with the client's identity and [token]; errors are [RaminoException]s. Not retried. */
    public fun <Req : Any, Resp : Any> stream(method: MethodDescriptor<Req, Resp>, request: Req, token: String? = null): Flow<Resp> =
        flow {
            val place = streams.take()
            try {
                emitAll(ClientCalls.serverStreamingRpc(place.channel, method, request, CallOptions.DEFAULT, headers(token)))
            } finally {
                place.close()
            }
        }.catch { e -> throw (if (e is Exception) RaminoException.from(e) else null) ?: e }

    /** A new game; bot seats are filled at once. Sent with a fresh request id unless [GameSpec.requestId]. */
    public suspend fun createGame(spec: GameSpec): CreatedGame {
        val request = CreateGameRequest.newBuilder()
            .setVariant(spec.variant)
            .addAllSeats(spec.seats)
            .setTurnTimerSeconds(spec.turnTimerSeconds)
            .setSpectatorsDisabled(spec.spectatorsDisabled)
            .setRequestId(spec.requestId ?: newRequestId())
            .setVisibility(if (spec.private) Visibility.VISIBILITY_PRIVATE else Visibility.VISIBILITY_PUBLIC)
            .setRated(spec.rated)
            .setQuickPlay(spec.quickPlay)
        spec.overrides?.let { request.setOverrides(it) }
        val response = call(GameServiceGrpc.getCreateGameMethod(), request.build())
        return CreatedGame(response.game, response.creatorToken, response.inviteCode)
    }

    /**
     * Takes a seat (the first open one, or [seat]) of the private game an invite code, or its link,
     * opens. A code that opens nothing is [RaminoException.NotFound] with reason INVITE_NOT_VALID,
     * whether or not its game exists.
     */
    public suspend fun joinInvite(inviteCode: String, playerName: String, seat: Int? = null, requestId: String? = null): Seat {
        val request = JoinGameRequest.newBuilder()
            .setInviteCode(inviteCodeOf(inviteCode))
            .setPlayerName(playerName)
            .setRequestId(requestId ?: newRequestId())
        seat?.let { request.setSeat(it) }
        val response = call(GameServiceGrpc.getJoinGameMethod(), request.build())
        return Seat(this, response.view.name, response.seat, response.seatToken, response.view)
    }

    /** Takes a seat of [game] (the first open one, or [seat]) for [playerName]. */
    public suspend fun joinGame(game: String, playerName: String, seat: Int? = null, requestId: String? = null): Seat {
        val request = JoinGameRequest.newBuilder()
            .setName(gameName(game))
            .setPlayerName(playerName)
            .setRequestId(requestId ?: newRequestId())
        seat?.let { request.setSeat(it) }
        val response = call(GameServiceGrpc.getJoinGameMethod(), request.build())
        return Seat(this, response.view.name, response.seat, response.seatToken, response.view)
    }

    /** The seat a saved seat token holds (its view is fetched, so a bad token fails here). */
    public suspend fun seatFromToken(game: String, token: String): Seat {
        val view = view(gameName(game), token)
        if (!view.hasSeat()) {
            throw RaminoException.make(
                Status.Code.PERMISSION_DENIED,
                Reasons.SPECTATOR_TOKEN,
                "the server sees this token as a spectator's",
            )
        }
        return Seat(this, view.name, view.seat, token, view)
    }

    /** A seat from what is known of it, without a call. */
    public fun seat(game: String, number: Int, token: String): Seat = Seat(this, gameName(game), number, token, null)

    /** The spectator's view of [game]. */
    public suspend fun getGame(game: String): GameView = view(gameName(game), null)

    internal suspend fun view(name: String, token: String?): GameView =
        call(GameServiceGrpc.getGetGameMethod(), GetGameRequest.newBuilder().setName(name).build(), token).view

    /** Ends [game] as cancelled, with the creator token of [createGame]. */
    public suspend fun cancelGame(game: String, creatorToken: String): GameView =
        call(GameServiceGrpc.getCancelGameMethod(), CancelGameRequest.newBuilder().setName(gameName(game)).build(), creatorToken).view

    /** The lobby, every page of it. */
    public fun listGames(filter: ListFilter = ListFilter()): Flow<Game> = flow {
        var pageToken = ""
        do {
            val page = call(
                GameServiceGrpc.getListGamesMethod(),
                ListGamesRequest.newBuilder()
                    .setPageSize(filter.pageSize)
                    .setPageToken(pageToken)
                    .setVariant(filter.variant)
                    .setOpenSeatsOnly(filter.openSeatsOnly)
                    .setStatus(filter.status)
                    .build(),
            )
            page.gamesList.forEach { emit(it) }
            pageToken = page.nextPageToken
        } while (pageToken.isNotEmpty())
    }

    /**
     * A spectator's watch of [game]: a snapshot, then every event (see
     * [GameWatch]); after [afterVersion] to resume, with a snapshot anyway
     * when [snapshot]; it ends with the match unless [pastTheEnd].
     */
    public fun watch(game: String, afterVersion: Long? = null, snapshot: Boolean = false, pastTheEnd: Boolean = false): GameWatch =
        GameWatch(this, gameName(game), null, afterVersion, snapshot, pastTheEnd)

    /** Whether [cards], in this order, are a legal meld of [variant]. */
    public suspend fun validateMeld(variant: String, cards: List<String>, overrides: VariantParameters? = null): ValidateMeldResponse {
        val request = ValidateMeldRequest.newBuilder().setVariant(variant).addAllCards(cards)
        overrides?.let { request.setOverrides(it) }
        return call(RulesServiceGrpc.getValidateMeldMethod(), request.build())
    }

    /** Best opening, minimum deadwood and lay-offs of [hand] against the [table]'s melds. */
    public suspend fun analyzeHand(
        variant: String,
        hand: List<String>,
        table: List<List<String>> = emptyList(),
        overrides: VariantParameters? = null,
    ): AnalyzeHandResponse {
        val request = AnalyzeHandRequest.newBuilder().setVariant(variant).addAllHand(hand)
            .addAllTable(table.map { MeldCodes.newBuilder().addAllCards(it).build() })
        overrides?.let { request.setOverrides(it) }
        return call(RulesServiceGrpc.getAnalyzeHandMethod(), request.build())
    }

    /** The variant presets with every parameter. */
    public suspend fun listVariants(): List<Variant> =
        call(RulesServiceGrpc.getListVariantsMethod(), ListVariantsRequest.getDefaultInstance()).variantsList

    /**
     * The bot levels a person picks from, weakest first: how each plays, its
     * time a decision on the server, and its rating on one scale for every
     * level (`rating`: mu - 3 sigma, from the server's arena of the levels).
     */
    public suspend fun listBotLevels(): List<BotLevelInfo> =
        call(RulesServiceGrpc.getListBotLevelsMethod(), ListBotLevelsRequest.getDefaultInstance()).levelsList

    public companion object {
        private val random = SecureRandom()

        /** A fresh request id (16 random bytes, base64url). */
        public fun newRequestId(): String = randomString(16)

        /** A fresh caller key (32 random bytes, base64url). */
        public fun newCallerKey(): String = randomString(32)

        private fun randomString(bytes: Int): String {
            val b = ByteArray(bytes)
            random.nextBytes(b)
            return Base64.getUrlEncoder().withoutPadding().encodeToString(b)
        }

        /** "games/{id}" from a game's id or name. */
        public fun gameName(game: String): String = if (game.startsWith("games/")) game else "games/$game"

        /** A client on a channel the caller made and keeps (its close leaves the channel open). */
        public fun onChannel(channel: Channel, options: ClientOptions = ClientOptions()): RaminoClient =
            RaminoClient(null, channel, options, null)

        internal fun retryable(code: Status.Code): Boolean =
            code == Status.Code.UNAVAILABLE || code == Status.Code.CANCELLED

        private fun open(target: String, options: ClientOptions): ManagedChannel {
            require(target.isNotBlank()) { "RaminoClient: the server's target is empty" }
            val credentials = options.tls?.credentials() ?: InsecureChannelCredentials.create()
            val builder = OkHttpChannelBuilder.forTarget(target, credentials)
            options.tls?.authority?.let { builder.overrideAuthority(it) }
            options.loadBalancing?.let { builder.defaultLoadBalancingPolicy(it) }
            options.configure?.invoke(builder)
            return builder.build()
        }
    }
}
