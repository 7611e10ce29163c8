package dev.ramino.client.conformance

import com.google.gson.JsonArray
import com.google.gson.JsonElement
import com.google.gson.JsonNull
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import com.google.gson.JsonPrimitive
import com.google.protobuf.InvalidProtocolBufferException
import com.google.protobuf.Message
import com.google.protobuf.MessageOrBuilder
import com.google.protobuf.TypeRegistry
import com.google.protobuf.util.JsonFormat
import com.google.rpc.ErrorInfo
import dev.ramino.client.ClientOptions
import dev.ramino.client.GameWatch
import dev.ramino.client.RaminoClient
import dev.ramino.client.RaminoException
import dev.ramino.client.REPO
import dev.ramino.client.TestServer
import dev.ramino.client.WatchItem
import io.grpc.CallOptions
import io.grpc.Metadata
import io.grpc.MethodDescriptor
import io.grpc.StatusException
import io.grpc.kotlin.ClientCalls
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.consumeAsFlow
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeoutOrNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.fail
import ramino.v1.GameOuterClass.PlayGameRequest
import ramino.v1.GameOuterClass.PlayGameResponse
import ramino.v1.GameOuterClass.PlayGameStart
import ramino.v1.GameServiceGrpc
import ramino.v1.Match.TicketState
import ramino.v1.Match.TicketUpdate
import ramino.v1.MatchServiceGrpc
import java.io.File
import java.math.BigDecimal
import java.security.MessageDigest
import java.util.Base64
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec
import kotlin.time.Duration.Companion.seconds

private const val FORMAT_VERSION = 1
private const val FORGED_TOKEN = "forged.conformance.token"
private val WATCH_TIMEOUT = 10.seconds
private val STEP_FIELDS = setOf("op", "game", "as", "args", "watch", "session", "count", "resume", "expect", "ticket", "party")

/** The ops whose game and caller are those of the stream they act on. */
private val ON_A_STREAM = setOf("watch_next", "watch_close", "session_send", "session_next", "session_close", "session_end")
private val TOKEN_KEYS = setOf("seatToken", "creatorToken")
private val TIME_KEYS = setOf("createTime", "turnDeadline", "submitTime", "expireTime")

/** Doubles (their JSON differs by language; a wait or window by the clock). */
private val NUMBER_KEYS = setOf("ratingWindow", "expectedWait", "rating")
private val SECRET_KEYS = mapOf("inviteCode" to "<invite>", "invitation" to "<invitation>")
private val WITHOUT_REQUEST_ID = setOf("get_game", "legal_moves", "cancel_game", "join_invite")

/** A player token's exp (2100-01-01): the same token from every runner. */
private const val PLAYER_TOKEN_EXP = 4102444800L
private val FINAL_STATES = setOf(
    TicketState.TICKET_STATE_MATCHED,
    TicketState.TICKET_STATE_EXPIRED,
    TicketState.TICKET_STATE_CANCELLED,
)

/** The player token of the README ("Players"): an HS256 JWT, byte for byte the same from every runner. */
private fun playerToken(player: String, secret: ByteArray): String {
    val b64 = Base64.getUrlEncoder().withoutPadding()
    val signed = b64.encodeToString("""{"alg":"HS256","typ":"JWT"}""".toByteArray()) + "." +
        b64.encodeToString("""{"sub":"$player","exp":$PLAYER_TOKEN_EXP}""".toByteArray())
    val mac = Mac.getInstance("HmacSHA256").apply { init(SecretKeySpec(secret, "HmacSHA256")) }
    return signed + "." + b64.encodeToString(mac.doFinal(signed.toByteArray()))
}

/** The unary MatchService ops of a player, by the SDK's method descriptors. */
private val MATCH_UNARY: Map<String, MethodDescriptor<*, *>> = mapOf(
    "ticket_cancel" to MatchServiceGrpc.getCancelTicketMethod(),
    "ticket_list" to MatchServiceGrpc.getListTicketsMethod(),
    "party_create" to MatchServiceGrpc.getCreatePartyMethod(),
    "party_invite" to MatchServiceGrpc.getInviteToPartyMethod(),
    "party_join" to MatchServiceGrpc.getJoinPartyMethod(),
    "party_get" to MatchServiceGrpc.getGetPartyMethod(),
)

/** The scenario itself is malformed (not a disagreement with the server). */
private class ScenarioError(message: String) : Exception(message)

/** What came out differs from what the scenario expects. */
private class Mismatch(message: String) : Exception(message)

/** The unary ops of the suite, by the SDK's method descriptors. */
private val UNARY: Map<String, MethodDescriptor<*, *>> = mapOf(
    "create" to GameServiceGrpc.getCreateGameMethod(),
    "join" to GameServiceGrpc.getJoinGameMethod(),
    "get_game" to GameServiceGrpc.getGetGameMethod(),
    "legal_moves" to GameServiceGrpc.getGetLegalMovesMethod(),
    "draw_from_stock" to GameServiceGrpc.getDrawFromStockMethod(),
    "take_discard" to GameServiceGrpc.getTakeDiscardMethod(),
    "turn_over_discard_pile" to GameServiceGrpc.getTurnOverDiscardPileMethod(),
    "lay_melds" to GameServiceGrpc.getLayMeldsMethod(),
    "lay_off" to GameServiceGrpc.getLayOffMethod(),
    "swap_joker" to GameServiceGrpc.getSwapJokerMethod(),
    "discard" to GameServiceGrpc.getDiscardMethod(),
    "resign" to GameServiceGrpc.getResignMethod(),
    "pass_upcard" to GameServiceGrpc.getPassUpcardMethod(),
    "knock" to GameServiceGrpc.getKnockMethod(),
    "accept_layout" to GameServiceGrpc.getAcceptLayoutMethod(),
    "cancel_game" to GameServiceGrpc.getCancelGameMethod(),
    "join_invite" to GameServiceGrpc.getJoinGameMethod(),
)

/** Protobuf JSON of the messages (this build generates them for the full runtime: pom.xml). */
private object ProtoJson {
    // A session's refused answer holds a google.rpc.ErrorInfo in an Any.
    private val printer = JsonFormat.printer().alwaysPrintFieldsWithNoPresence()
        .usingTypeRegistry(TypeRegistry.newBuilder().add(ErrorInfo.getDescriptor()).build())

    /** [json] (protobuf JSON, unknown fields refused) merged into [builder]. */
    fun <B : Message.Builder> merge(json: String, builder: B, what: String): B {
        try {
            JsonFormat.parser().merge(json, builder)
        } catch (e: InvalidProtocolBufferException) {
            throw ScenarioError("args of $what: ${e.message}")
        }
        return builder
    }

    /** [json] (protobuf JSON, unknown fields refused) as [method]'s request. */
    fun <Req> request(method: MethodDescriptor<Req, *>, json: String): Req {
        val prototype = (method.requestMarshaller as MethodDescriptor.PrototypeMarshaller<Req>).messagePrototype as Message
        val builder = prototype.newBuilderForType()
        try {
            JsonFormat.parser().merge(json, builder)
        } catch (e: InvalidProtocolBufferException) {
            throw ScenarioError("args of ${method.bareMethodName}: ${e.message}")
        }
        @Suppress("UNCHECKED_CAST")
        return builder.build() as Req
    }

    /** [message] printed with every field without presence, then parsed. */
    fun print(message: Any): JsonElement = JsonParser.parseString(printer.print(message as MessageOrBuilder))
}

/** Canonical JSON: keys sorted by code point, no whitespace, the short escapes, other control characters as \u00xx. */
internal fun canonical(v: JsonElement): String = StringBuilder().also { write(v, it) }.toString()

private fun write(v: JsonElement, out: StringBuilder) {
    when {
        v.isJsonNull -> out.append("null")
        v.isJsonObject -> {
            out.append('{')
            v.asJsonObject.keySet().sortedWith(::compareCodePoints).forEachIndexed { i, k ->
                if (i > 0) out.append(',')
                writeString(k, out)
                out.append(':')
                write(v.asJsonObject.get(k), out)
            }
            out.append('}')
        }
        v.isJsonArray -> {
            out.append('[')
            v.asJsonArray.forEachIndexed { i, e ->
                if (i > 0) out.append(',')
                write(e, out)
            }
            out.append(']')
        }
        else -> {
            val p = v.asJsonPrimitive
            when {
                p.isString -> writeString(p.asString, out)
                p.isBoolean -> out.append(p.asBoolean)
                else -> out.append(p.asNumber.toString())
            }
        }
    }
}

private fun compareCodePoints(a: String, b: String): Int {
    var i = 0
    var j = 0
    while (i < a.length && j < b.length) {
        val x = a.codePointAt(i)
        val y = b.codePointAt(j)
        if (x != y) return x.compareTo(y)
        i += Character.charCount(x)
        j += Character.charCount(y)
    }
    return (a.length - i).compareTo(b.length - j)
}

private fun writeString(s: String, out: StringBuilder) {
    out.append('"')
    for (c in s) {
        when (c) {
            '"' -> out.append("\\\"")
            '\\' -> out.append("\\\\")
            '\b' -> out.append("\\b")
            '\u000c' -> out.append("\\f")
            '\n' -> out.append("\\n")
            '\r' -> out.append("\\r")
            '\t' -> out.append("\\t")
            else -> if (c < ' ') out.append("\\u%04x".format(c.code)) else out.append(c)
        }
    }
    out.append('"')
}

internal fun normalize(v: JsonElement, labels: Map<String, String>): JsonElement = when {
    v.isJsonObject -> JsonObject().also { o ->
        for ((k, value) in v.asJsonObject.entrySet()) {
            val primitive = value.takeIf { it.isJsonPrimitive }?.asJsonPrimitive
            o.add(
                k,
                when {
                    k in TOKEN_KEYS -> JsonPrimitive("<token>")
                    k in TIME_KEYS -> JsonPrimitive("<time>")
                    k in NUMBER_KEYS && primitive?.isNumber == true -> JsonPrimitive("<number>")
                    k in SECRET_KEYS && primitive?.isString == true && primitive.asString.isNotEmpty() ->
                        JsonPrimitive(SECRET_KEYS.getValue(k))
                    else -> normalize(value, labels)
                },
            )
        }
        // A session's refused answer (a google.rpc.Status): its text is never
        // compared, as no unary error's is.
        val refusal = if (o.has("requestId")) o.get("error") else null
        if (refusal != null && refusal.isJsonObject && refusal.asJsonObject.has("message")) {
            refusal.asJsonObject.addProperty("message", "<message>")
        }
    }
    v.isJsonArray -> JsonArray().also { a -> v.asJsonArray.forEach { a.add(normalize(it, labels)) } }
    v.isJsonPrimitive && v.asJsonPrimitive.isString ->
        labels[v.asString]?.let { JsonPrimitive(if ('/' in it) it else "games/$it") } ?: v
    else -> v
}

/** The members beside an object's kind: a GameEvent's version, seat and turn
 * after it, a watch message's version and the seat's options. */
private val KIND_BESIDE = setOf("version", "seat", "turn", "options")

private fun kindOf(o: JsonObject, path: String): JsonElement {
    val keys = o.keySet().filter { it !in KIND_BESIDE }.sorted()
    if (keys.isEmpty() && o.has("options")) return JsonPrimitive("options") // a session's message of options alone
    if (keys.size != 1) throw Mismatch("$path: @kind of an object with members $keys")
    val inner = o.get(keys[0])
    if (keys[0] == "event" && inner.isJsonObject) return kindOf(inner.asJsonObject, path)
    return JsonPrimitive(keys[0])
}

private val INDEX = Regex("-?[0-9]+")

internal fun evaluate(root: JsonElement, path: String): JsonElement = walk(root, path.split('.'), path)

private fun walk(start: JsonElement, segments: List<String>, path: String): JsonElement {
    var v = start
    for ((i, seg) in segments.withIndex()) {
        if (v.isJsonNull) return JsonNull.INSTANCE
        v = when {
            seg == "*" -> {
                if (!v.isJsonArray) throw Mismatch("$path: '*' of a non-array")
                return JsonArray().also { out -> v.asJsonArray.forEach { out.add(walk(it, segments.drop(i + 1), path)) } }
            }
            seg == "#" -> {
                if (!v.isJsonArray) throw Mismatch("$path: '#' of a non-array")
                JsonPrimitive(v.asJsonArray.size())
            }
            seg == "@kind" -> {
                if (!v.isJsonObject) throw Mismatch("$path: '@kind' of a non-object")
                kindOf(v.asJsonObject, path)
            }
            INDEX.matches(seg) -> {
                if (!v.isJsonArray) throw Mismatch("$path: index $seg of a non-array")
                val a = v.asJsonArray
                val idx = seg.toInt().let { if (it < 0) it + a.size() else it }
                if (idx < 0 || idx >= a.size()) JsonNull.INSTANCE else a.get(idx)
            }
            else -> {
                if (!v.isJsonObject) throw Mismatch("$path: field \"$seg\" of a non-object")
                v.asJsonObject.get(seg) ?: JsonNull.INSTANCE
            }
        }
    }
    return v
}

/** JSON equality: same types, numbers by value. */
internal fun same(a: JsonElement, b: JsonElement): Boolean = when {
    a.isJsonObject -> b.isJsonObject && a.asJsonObject.keySet() == b.asJsonObject.keySet() &&
        a.asJsonObject.keySet().all { same(a.asJsonObject.get(it), b.asJsonObject.get(it)) }
    a.isJsonArray -> b.isJsonArray && a.asJsonArray.size() == b.asJsonArray.size() &&
        (0 until a.asJsonArray.size()).all { same(a.asJsonArray.get(it), b.asJsonArray.get(it)) }
    a.isJsonNull -> b.isJsonNull
    a.asJsonPrimitive.isNumber -> b.isJsonPrimitive && b.asJsonPrimitive.isNumber &&
        BigDecimal(a.asNumber.toString()).compareTo(BigDecimal(b.asNumber.toString())) == 0
    else -> b.isJsonPrimitive && !b.asJsonPrimitive.isNumber && a == b
}

private class Scenario(val name: String, val sha256: String, val players: Boolean, val steps: List<JsonObject>)

/** A player's SubmitTicket or WatchTicket stream (the SDK's [RaminoClient.stream]) read through a channel, and the last update read. */
private class TicketStream(val job: Job, val updates: Channel<TicketUpdate>, var last: TicketUpdate)

/** A watch of the scenario: the SDK's GameWatch, read message by message through a channel. */
private class OpenWatch(val caller: String, val game: String, val job: Job, val items: Channel<WatchItem>) {
    var lastVersion: JsonElement? = null
    var open = true
}

/** A PlayGame session: the generated bidi call (grpc-kotlin), its moves fed
 * through [moves], its messages read through [received]. */
private class OpenSession(
    val caller: String,
    val game: String,
    val moves: Channel<PlayGameRequest>,
    val job: Job,
    val received: Channel<PlayGameResponse>,
) {
    var lastVersion: JsonElement? = null
    var open = true
}

/**
 * One scenario's run: [client] calls the scenario's server; [player] gives
 * a player's client on the server of players (made once per player).
 */
private class Replay(
    private val client: RaminoClient,
    private val scenario: Scenario,
    private val scope: CoroutineScope,
    private val player: (String) -> RaminoClient,
) {
    val lines = mutableListOf("format $FORMAT_VERSION", "scenario ${scenario.name} sha256=${scenario.sha256}")
    private val games = mutableMapOf<String, Pair<String, String>>() // label -> (name, creator token)
    private val invites = mutableMapOf<String, String>() // game label -> invite code
    private val seats = mutableMapOf<String, Pair<String, String>>() // label -> (game label, seat token)
    private val watches = mutableMapOf<String, OpenWatch>()
    private val sessions = mutableMapOf<String, OpenSession>()

    // Tickets and parties by label, in the order bound (a name's first label is printed).
    private val tickets = linkedMapOf<String, String>()
    private val parties = linkedMapOf<String, String>()
    private val invitations = mutableMapOf<Pair<String, String>, String>() // (party label, player) -> id
    private val ticketStreams = mutableMapOf<Pair<String, String>, TicketStream>() // (ticket label, player)

    private fun labels(): Map<String, String> {
        val out = games.entries.associate { (label, g) -> g.first to label }.toMutableMap()
        for ((kind, bound) in listOf("tickets" to tickets, "parties" to parties)) {
            for ((label, name) in bound.entries.reversed()) out[name] = "$kind/$label" // the first label wins
        }
        return out
    }

    private fun gameName(label: String): String = games[label]?.first ?: throw ScenarioError("no game labelled \"$label\" yet")

    private fun token(caller: String, game: String): String? = when (caller) {
        "spectator" -> null
        "forged" -> FORGED_TOKEN
        "creator" -> games[game]?.second ?: throw ScenarioError("no game labelled \"$game\" yet")
        else -> seats[caller]?.second ?: throw ScenarioError("no seat labelled \"$caller\" yet")
    }

    /** Replays the scenario; the failure, or null. */
    suspend fun run(): String? {
        try {
            for ((i, step) in scenario.steps.withIndex()) {
                try {
                    step(i, step)
                } catch (e: Mismatch) {
                    lines += "FAILED ${e.message}"
                    return "step $i: ${e.message}"
                } catch (e: ScenarioError) {
                    lines += "FAILED malformed scenario: ${e.message}"
                    return "step $i: malformed scenario: ${e.message}"
                }
            }
            return null
        } finally {
            watches.values.filter { it.open }.forEach { it.job.cancel() }
            sessions.values.filter { it.open }.forEach { it.job.cancel() }
            ticketStreams.values.forEach { it.job.cancel() }
        }
    }

    private fun str(step: JsonObject, key: String, fallback: String?): String {
        val v = step.get(key) ?: return fallback ?: throw ScenarioError("no \"$key\"")
        if (!v.isJsonPrimitive || !v.asJsonPrimitive.isString) throw ScenarioError("not a string: $v")
        return v.asString
    }

    private suspend fun step(index: Int, step: JsonObject) {
        val unknown = step.keySet() - STEP_FIELDS
        if (unknown.isNotEmpty()) throw ScenarioError("step $index: unknown fields ${unknown.sorted()}")
        val op = str(step, "op", null)
        var game = str(step, "game", "g")
        var caller = str(step, "as", "spectator")
        if (op in ON_A_STREAM) {
            if (op.startsWith("session_")) {
                val s = sessions[str(step, "session", null)] ?: throw ScenarioError("no session labelled ${step.get("session")}")
                game = s.game
                caller = s.caller
            } else {
                val w = watches[str(step, "watch", null)] ?: throw ScenarioError("no watch labelled ${step.get("watch")}")
                game = w.game
                caller = w.caller
            }
        }
        lines += "step $index $op $game $caller"
        val expect = step.get("expect")?.asJsonObject ?: JsonObject()
        val response = try {
            call(op, game, caller, step)
        } catch (e: RaminoException) {
            lines += "error ${e.codeName} ${e.reason}"
            val wanted = expect.get("error")?.asJsonObject
                ?: throw Mismatch("expected success, got ${e.codeName} ${e.reason}: ${e.detail}")
            val code = wanted.get("code").asString
            val reason = wanted.get("reason").asString
            if (code != e.codeName || reason != e.reason) throw Mismatch("expected $code $reason, got ${e.codeName} ${e.reason}")
            return
        }
        val normalized = normalize(response, labels())
        lines += "ok ${canonical(normalized)}"
        expect.get("error")?.asJsonObject?.let {
            throw Mismatch("expected ${it.get("code").asString} ${it.get("reason").asString}, got success")
        }
        for (fact in expect.get("facts")?.asJsonArray ?: JsonArray()) {
            val path = fact.asJsonObject.get("path").asString
            val equals = fact.asJsonObject.get("equals")
            val got = evaluate(normalized, path)
            lines += "fact $path ${canonical(got)}"
            if (!same(got, equals)) throw Mismatch("$path: expected ${canonical(equals)}, got ${canonical(got)}")
        }
    }

    private suspend fun call(op: String, game: String, caller: String, step: JsonObject): JsonElement {
        val args = step.get("args")?.asJsonObject?.deepCopy() ?: JsonObject()
        if (op.startsWith("watch_")) return watch(op, game, caller, step, args)
        if (op.startsWith("session_")) return session(op, game, caller, step, args)
        if (op == "ticket_submit" || op == "ticket_watch" || op == "ticket_wait") return ticket(op, game, caller, step, args)
        if (op in MATCH_UNARY) return match(op, caller, step, args)
        if (op == "list_games") return listGames(args)
        @Suppress("UNCHECKED_CAST")
        val method = (UNARY[op] ?: throw ScenarioError("unknown op \"$op\"")) as MethodDescriptor<Any, Any>
        if (op == "join_invite") {
            if (!args.has("inviteCode")) {
                args.addProperty("inviteCode", invites[game] ?: throw ScenarioError("no game labelled \"$game\" yet"))
            }
        } else if (op != "create") {
            args.addProperty("name", gameName(game))
        }
        if (!args.has("requestId") && op !in WITHOUT_REQUEST_ID) args.addProperty("requestId", RaminoClient.newRequestId())
        val request = ProtoJson.request(method, canonical(args))
        val token = if (op == "create" || op == "join" || op == "join_invite") null else token(caller, game)
        val response = client.call(method, request, token)
        val printed = ProtoJson.print(response)
        when (op) {
            "create" -> {
                val name = printed.asJsonObject.getAsJsonObject("game").get("name").asString
                val bound = games[game]
                if (bound != null && bound.first != name) throw Mismatch("create '$game' again made another game (a retry makes none)")
                games[game] = name to printed.asJsonObject.get("creatorToken").asString
                invites[game] = printed.asJsonObject.get("inviteCode").asString
            }
            "join", "join_invite" -> seats[caller] = game to printed.asJsonObject.get("seatToken").asString
        }
        return printed
    }

    /** Every page of ListGames, only the scenario's games kept. */
    private suspend fun listGames(args: JsonObject): JsonElement {
        val mine = labels()
        val games = JsonArray()
        if (!args.has("pageSize")) args.addProperty("pageSize", 100)
        while (true) {
            val method = GameServiceGrpc.getListGamesMethod()
            val page = client.call(method, ProtoJson.request(method, canonical(args)))
            for (g in page.gamesList) if (g.name in mine) games.add(ProtoJson.print(g))
            if (page.nextPageToken.isEmpty()) return JsonObject().also { it.add("games", games) }
            args.addProperty("pageToken", page.nextPageToken)
        }
    }

    private fun bound(map: Map<String, String>, kind: String, step: JsonObject): String {
        val label = step.get(kind)?.asString
        return map[label] ?: throw ScenarioError("no $kind labelled \"$label\"")
    }

    /** A unary call of MatchService as the player [caller]. */
    private suspend fun match(op: String, caller: String, step: JsonObject, args: JsonObject): JsonElement {
        @Suppress("UNCHECKED_CAST")
        val method = MATCH_UNARY.getValue(op) as MethodDescriptor<Any, Any>
        when (op) {
            "ticket_cancel" -> args.addProperty("ticket", bound(tickets, "ticket", step))
            "ticket_list", "party_create" -> {}
            else -> args.addProperty("party", bound(parties, "party", step))
        }
        val party = step.get("party")?.asString ?: ""
        if (op == "party_join" && !args.has("invitation")) args.addProperty("invitation", invitations[party to caller] ?: "")
        val request = ProtoJson.request(method, canonical(args))
        val printed = ProtoJson.print(player(caller).call(method, request))
        when (op) {
            "party_create" -> parties[party] = printed.asJsonObject.getAsJsonObject("party").get("name").asString
            "party_invite" -> invitations[party to args.get("player").asString] = printed.asJsonObject.get("invitation").asString
        }
        return printed
    }

    /**
     * A ticket's stream as the player [caller]: opened by SubmitTicket or
     * WatchTicket (its first update read), or read to its final update.
     */
    private suspend fun ticket(op: String, game: String, caller: String, step: JsonObject, args: JsonObject): JsonElement {
        val label = step.get("ticket")?.asString ?: throw ScenarioError("$op: no ticket label")
        val key = label to caller
        if (op == "ticket_wait") {
            val t = ticketStreams[key] ?: throw ScenarioError("ticket \"$label\" has no stream of \"$caller\"")
            while (t.last.state !in FINAL_STATES) t.last = readUpdate(t.updates, label)
            val update = t.last
            if (update.game.isNotEmpty()) {
                val bound = games[game]
                if (bound != null && bound.first != update.game) throw Mismatch("ticket '$label' seated in another game than '$game'")
                games[game] = update.game to ""
                seats[caller] = game to update.seatToken
            }
            return JsonObject().also { it.add("update", ProtoJson.print(update)) }
        }
        val client = player(caller)
        val flow: Flow<TicketUpdate> = if (op == "ticket_submit") {
            if (step.has("party")) args.addProperty("party", bound(parties, "party", step))
            val method = MatchServiceGrpc.getSubmitTicketMethod()
            client.stream(method, ProtoJson.request(method, canonical(args))).map { it.update }
        } else {
            args.addProperty("ticket", bound(tickets, "ticket", step))
            val method = MatchServiceGrpc.getWatchTicketMethod()
            client.stream(method, ProtoJson.request(method, canonical(args))).map { it.update }
        }
        ticketStreams.remove(key)?.job?.cancel()
        val updates = Channel<TicketUpdate>(Channel.UNLIMITED)
        val job = scope.launch {
            try {
                flow.collect { updates.send(it) }
                updates.close()
            } catch (e: CancellationException) {
                updates.close()
                throw e
            } catch (e: Exception) {
                updates.close(e)
            }
        }
        val first = try {
            readUpdate(updates, label)
        } catch (e: Exception) {
            job.cancel()
            throw e
        }
        ticketStreams[key] = TicketStream(job, updates, first)
        if (label !in tickets) tickets[label] = first.ticket
        return JsonObject().also { it.addProperty("ticket", first.ticket) }
    }

    /** The stream's next update (10 s at most); a failed stream throws its RaminoException. */
    private suspend fun readUpdate(updates: Channel<TicketUpdate>, label: String): TicketUpdate {
        val got = withTimeoutOrNull(WATCH_TIMEOUT) { updates.receiveCatching() }
            ?: throw Mismatch("ticket '$label': no update within ${WATCH_TIMEOUT.inWholeSeconds} s")
        return got.getOrNull() ?: when (val cause = got.exceptionOrNull()) {
            is RaminoException -> throw cause
            null -> throw Mismatch("ticket '$label': the stream ended")
            else -> throw Mismatch("ticket '$label': the stream ended ($cause)")
        }
    }

    private suspend fun session(op: String, game: String, caller: String, step: JsonObject, args: JsonObject): JsonElement {
        val label = str(step, "session", null)
        if (op == "session_open") {
            step.get("resume")?.let { from ->
                val last = sessions[from.asString]?.lastVersion ?: throw ScenarioError("session ${from.asString} read nothing to resume after")
                args.add("afterVersion", last)
            }
            args.addProperty("name", gameName(game))
            val start = ProtoJson.merge(canonical(args), PlayGameStart.newBuilder(), "session_open").build()
            // The metadata the SDK sends: its caller key and the caller's token.
            val headers = Metadata()
            headers.put(Metadata.Key.of("ramino-caller-key", Metadata.ASCII_STRING_MARSHALLER), client.callerKey)
            token(caller, game)?.let { headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer $it") }
            val moves = Channel<PlayGameRequest>(Channel.UNLIMITED)
            moves.send(PlayGameRequest.newBuilder().setStart(start).build())
            val received = Channel<PlayGameResponse>(Channel.UNLIMITED)
            val job = scope.launch {
                try {
                    ClientCalls.bidiStreamingRpc(
                        client.channel, GameServiceGrpc.getPlayGameMethod(), moves.consumeAsFlow(), CallOptions.DEFAULT, headers,
                    ).collect { received.send(it) }
                    received.close()
                } catch (e: CancellationException) {
                    received.close()
                    throw e
                } catch (e: StatusException) {
                    received.close(RaminoException.of(e.status, e.trailers, e))
                } catch (e: Exception) {
                    received.close(e)
                }
            }
            sessions[label] = OpenSession(caller, game, moves, job, received)
            return JsonObject()
        }
        val s = sessions[label] ?: throw ScenarioError("no session labelled \"$label\"")
        when (op) {
            "session_send" -> {
                val move = ProtoJson.merge(canonical(args), PlayGameRequest.newBuilder(), "session_send").build()
                if (move.messageCase == PlayGameRequest.MessageCase.MESSAGE_NOT_SET || move.hasStart()) {
                    throw ScenarioError("session_send: args must hold one move")
                }
                s.moves.send(move)
                return JsonObject()
            }
            "session_close" -> {
                s.job.cancel()
                s.open = false
                return JsonObject()
            }
            "session_end" -> s.moves.close()
            "session_next" -> {}
            else -> throw ScenarioError("unknown op \"$op\"")
        }
        val count = if (op == "session_next") step.get("count")?.asInt ?: throw ScenarioError("session_next without count") else Int.MAX_VALUE
        val messages = JsonArray()
        while (messages.size() < count) {
            val got = withTimeoutOrNull(WATCH_TIMEOUT) { s.received.receiveCatching() }
                ?: throw Mismatch("session '$label': no message within ${WATCH_TIMEOUT.inWholeSeconds} s")
            val message = got.getOrNull() ?: run {
                s.open = false
                when (val cause = got.exceptionOrNull()) {
                    is RaminoException -> throw cause
                    null -> if (op == "session_end") null else throw Mismatch("session '$label': the stream ended")
                    else -> throw Mismatch("session '$label': the stream ended ($cause)")
                }
            } ?: break
            val printed = ProtoJson.print(message)
            messages.add(printed)
            s.lastVersion = printed.asJsonObject.get("version")
        }
        return JsonObject().also { it.add("messages", messages) }
    }

    private suspend fun watch(op: String, game: String, caller: String, step: JsonObject, args: JsonObject): JsonElement {
        val label = str(step, "watch", null)
        if (op == "watch_open") {
            step.get("resume")?.let { from ->
                val last = watches[from.asString]?.lastVersion ?: throw ScenarioError("watch ${from.asString} read nothing to resume after")
                args.add("afterVersion", last)
            }
            args.addProperty("name", gameName(game))
            val method = GameServiceGrpc.getWatchGameMethod()
            val request = ProtoJson.request(method, canonical(args))
            val token = token(caller, game)
            val after = if (request.hasAfterVersion()) request.afterVersion else null
            val gameWatch: GameWatch = if (token == null) {
                client.watch(request.name, after, request.snapshot, pastTheEnd = true)
            } else {
                client.seat(request.name, 0, token).watch(after, request.snapshot, pastTheEnd = true)
            }
            val items = Channel<WatchItem>(Channel.UNLIMITED)
            val job = scope.launch {
                try {
                    gameWatch.collect { items.send(it) }
                    items.close()
                } catch (e: CancellationException) {
                    items.close()
                    throw e
                } catch (e: Exception) {
                    items.close(e)
                }
            }
            watches[label] = OpenWatch(caller, game, job, items)
            return JsonObject()
        }
        val w = watches[label] ?: throw ScenarioError("no watch labelled \"$label\"")
        if (op == "watch_close") {
            w.job.cancel()
            w.open = false
            return JsonObject()
        }
        if (op != "watch_next") throw ScenarioError("unknown op \"$op\"")
        val count = step.get("count")?.asInt ?: throw ScenarioError("watch_next without count")
        val messages = JsonArray()
        repeat(count) {
            val got = withTimeoutOrNull(WATCH_TIMEOUT) { w.items.receiveCatching() }
                ?: throw Mismatch("watch '$label': no message within ${WATCH_TIMEOUT.inWholeSeconds} s")
            val item = got.getOrNull() ?: when (val cause = got.exceptionOrNull()) {
                is RaminoException -> throw cause
                null -> throw Mismatch("watch '$label': the stream ended")
                else -> throw Mismatch("watch '$label': the stream ended ($cause)")
            }
            val printed = ProtoJson.print(item)
            messages.add(printed)
            w.lastVersion = printed.asJsonObject.get("version")
        }
        return JsonObject().also { it.add("messages", messages) }
    }
}

class ConformanceTest {
    @Test
    fun `every scenario replayed through the Kotlin SDK`() {
        val dir = File(REPO, "tests/conformance")
        val suite = JsonParser.parseString(File(dir, "suite.json").readText()).asJsonObject
        val format = suite.get("formatVersion").asInt
        if (format != FORMAT_VERSION) fail("suite.json: unknown formatVersion $format")
        val scenarios = File(dir, "scenarios").listFiles { f -> f.name.endsWith(".json") }!!
            .sortedWith { a, b -> compareCodePoints(a.name, b.name) }
            .map { f ->
                val raw = f.readBytes()
                val doc = JsonParser.parseString(String(raw, Charsets.UTF_8)).asJsonObject
                val sha = MessageDigest.getInstance("SHA-256").digest(raw).joinToString("") { "%02x".format(it) }
                val players = doc.get("server")?.asString == "players"
                Scenario(f.name.removeSuffix(".json"), sha, players, doc.getAsJsonArray("steps").map { it.asJsonObject })
            }
        assertTrue(scenarios.isNotEmpty(), "no scenario in ${dir}/scenarios")
        val out = File(dir, "transcripts/kotlin")
        out.deleteRecursively()
        out.mkdirs()
        val failures = mutableMapOf<String, String>()
        val testMode = listOf("--test-seed", suite.get("testSeed").asString, "--abandon-after", "0")
        // The server of players (README, "Starting the servers").
        val secretFile = File(dir, "player-token.secret")
        val secret = secretFile.readText().trim().toByteArray()
        val playersArgs = testMode + listOf("--player-token-secret-file", secretFile.path, "--quick-bots-after", "0", "--quick-settle", "0")
        TestServer(args = testMode).start().use { server ->
            TestServer(args = playersArgs).start().use { players ->
                val playerClients = mutableMapOf<String, RaminoClient>()
                // A player's client ("": one without a player token).
                val player = { label: String ->
                    playerClients.getOrPut(label) {
                        RaminoClient(players.address, ClientOptions(playerToken = if (label.isEmpty()) null else playerToken(label, secret)))
                    }
                }
                try {
                    RaminoClient(server.address).use { client ->
                        runBlocking {
                            for (scenario in scenarios) {
                                val replay = Replay(if (scenario.players) player("") else client, scenario, this, player)
                                replay.run()?.let { failures[scenario.name] = it }
                                File(out, "${scenario.name}.txt").writeText(replay.lines.joinToString("\n") + "\n")
                            }
                        }
                    }
                } finally {
                    playerClients.values.forEach { it.close() }
                }
            }
        }
        if (failures.isNotEmpty()) fail("scenarios failed: $failures")
    }
}
