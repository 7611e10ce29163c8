package dev.ramino.client

import com.google.protobuf.Any as ProtoAny
import dev.ramino.client.internal.rpc.RpcErrorInfo
import dev.ramino.client.internal.rpc.RpcStatus
import io.grpc.CallOptions
import io.grpc.Channel
import io.grpc.ClientCall
import io.grpc.ClientInterceptor
import io.grpc.ForwardingClientCall
import io.grpc.ForwardingClientCallListener
import io.grpc.Metadata
import io.grpc.MethodDescriptor
import io.grpc.Status
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import ramino.v1.GameOuterClass.DrawFromStockRequest
import java.util.Collections

class ErrorsTest : LiveServerTest() {
    @Test
    fun `a move out of turn is FailedPrecondition NOT_YOUR_TURN and changes nothing`() = runBlocking {
        val (first, other) = twoPeople(client, "rummy")
        val before = first.view()
        val e = assertThrows<RaminoException.FailedPrecondition> { other.drawFromStock() }
        assertEquals(Reasons.NOT_YOUR_TURN, e.reason)
        assertEquals(Status.Code.FAILED_PRECONDITION, e.code)
        assertEquals("FAILED_PRECONDITION", e.codeName)
        assertTrue(e.domain.isNotEmpty(), "no ErrorInfo domain")
        assertTrue(e.message!!.contains("NOT_YOUR_TURN"), e.message)
        assertEquals(before.version, first.view().version)
    }

    @Test
    fun `a stale expected version is Aborted with the versions in its metadata`() = runBlocking {
        val (first, _) = twoPeople(client, "rummy")
        val version = first.view().version
        val e = assertThrows<RaminoException.Aborted> { first.drawFromStock(expectedVersion = version - 1) }
        assertEquals(Reasons.VERSION_MISMATCH, e.reason)
        assertEquals(version - 1, e.expected)
        assertEquals(version, e.actual)
        assertEquals(version.toString(), e.metadata["actual"])
        assertEquals(version, first.view().version, "the refused move changed the game")
        val drawn = first.drawFromStock(expectedVersion = version)
        assertEquals(version + 1, drawn.view.version)
    }

    @Test
    fun `lookups and tokens are refused with their reason`() = runBlocking {
        val missing = assertThrows<RaminoException.NotFound> { client.getGame("games/nosuchgame") }
        assertEquals(Reasons.GAME_NOT_FOUND, missing.reason)
        val forged = assertThrows<RaminoException.Unauthenticated> { client.seatFromToken("games/nosuchgame", "forged.token") }
        assertEquals(Reasons.TOKEN_INVALID, forged.reason)
        val unknown = assertThrows<RaminoException.InvalidArgument> {
            client.createGame(GameSpec("canasta", listOf(person("ann"), person("bob"))))
        }
        assertEquals("UNKNOWN_VARIANT", unknown.reason)
        val (first, _) = twoPeople(client, "rummy")
        val notCreator = assertThrows<RaminoException.PermissionDenied> { client.cancelGame(first.name, first.token) }
        assertEquals(Reasons.NOT_CREATOR, notCreator.reason)
        val other = twoPeople(client, "rummy").first
        val wrongGame = assertThrows<RaminoException.PermissionDenied> { client.seat(first.name, 0, other.token).legalMoves() }
        assertEquals(Reasons.WRONG_GAME, wrongGame.reason)
    }

    @Test
    fun `the ErrorInfo of a status's details becomes reason, domain and metadata`() {
        val info = RpcErrorInfo.newBuilder().setReason("VERSION_MISMATCH").setDomain("ramino.dev")
            .putMetadata("expected", "3").putMetadata("actual", "5").build()
        val details = RpcStatus.newBuilder().setCode(Status.Code.ABORTED.value()).setMessage("moved on")
            .addDetails(ProtoAny.newBuilder().setTypeUrl("type.googleapis.com/google.rpc.ErrorInfo").setValue(info.toByteString()))
            .build()
        val trailers = Metadata()
        trailers.put(Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER), details.toByteArray())
        val e = RaminoException.of(Status.ABORTED.withDescription("moved on"), trailers)
        assertTrue(e is RaminoException.Aborted)
        e as RaminoException.Aborted
        assertEquals("VERSION_MISMATCH", e.reason)
        assertEquals("ramino.dev", e.domain)
        assertEquals(3L, e.expected)
        assertEquals(5L, e.actual)
        assertEquals("moved on", e.detail)

        val bare = RaminoException.of(Status.UNAVAILABLE, Metadata())
        assertTrue(bare is RaminoException.Unavailable)
        assertEquals("UNAVAILABLE", bare.reason)
        assertEquals(emptyMap<String, String>(), bare.metadata)
        val internal = RaminoException.of(Status.INTERNAL.withDescription("boom"), null)
        assertTrue(internal is RaminoException.Other)
        assertNull((internal as? RaminoException.Aborted)?.expected)
    }

    /** Lets the first DrawFromStock reach the server, then tells the client it failed (UNAVAILABLE). */
    private class LoseFirstAnswer : ClientInterceptor {
        val requestIds: MutableList<String> = Collections.synchronizedList(mutableListOf())

        override fun <Req, Resp> interceptCall(method: MethodDescriptor<Req, Resp>, options: CallOptions, next: Channel): ClientCall<Req, Resp> {
            val call = next.newCall(method, options)
            if (method.fullMethodName != "ramino.v1.GameService/DrawFromStock") return call
            return object : ForwardingClientCall.SimpleForwardingClientCall<Req, Resp>(call) {
                var lose = false

                override fun sendMessage(message: Req) {
                    requestIds += (message as DrawFromStockRequest).requestId
                    lose = requestIds.size == 1
                    super.sendMessage(message)
                }

                override fun start(listener: Listener<Resp>, headers: Metadata) {
                    super.start(
                        object : ForwardingClientCallListener.SimpleForwardingClientCallListener<Resp>(listener) {
                            override fun onMessage(message: Resp) {
                                if (!lose) super.onMessage(message)
                            }

                            override fun onClose(status: Status, trailers: Metadata) {
                                if (lose && status.isOk) {
                                    super.onClose(Status.UNAVAILABLE.withDescription("answer lost on purpose"), Metadata())
                                } else {
                                    super.onClose(status, trailers)
                                }
                            }
                        },
                        headers,
                    )
                }
            }
        }
    }

    @Test
    fun `a lost answer is retried with the same request id and applied once`() = runBlocking {
        val lose = LoseFirstAnswer()
        val retries = Collections.synchronizedList(mutableListOf<RetryEvent>())
        val options = ClientOptions(retry = FAST_RETRY, configure = { it.intercept(lose) }, onRetry = { retries += it })
        RaminoClient(server.address, options).use { lossy ->
            val (first, _) = twoPeople(lossy, "rummy")
            val before = first.view()
            val result = first.drawFromStock(expectedVersion = before.version)
            val after = first.view()
            assertEquals(2, lose.requestIds.size, "request ids sent: ${lose.requestIds}")
            assertEquals(lose.requestIds[0], lose.requestIds[1])
            assertNotEquals("", lose.requestIds[0])
            assertEquals(1, retries.size, "retries: $retries")
            assertEquals("ramino.v1.GameService/DrawFromStock", retries[0].method)
            assertTrue(retries[0].error is RaminoException.Unavailable)
            assertEquals(before.handCount + 1, after.handCount)
            assertEquals(before.version + 1, after.version)
            assertEquals(after.version, result.view.version)
            assertEquals(1, result.eventsCount)
            assertTrue(result.getEvents(0).hasDrewFromStock())
        }
    }

    @Test
    fun `a repeated request id is answered again and applied once, and reused otherwise it is refused`() = runBlocking {
        val (first, other) = twoPeople(client, "rummy")
        val before = first.view()
        val once = first.drawFromStock(requestId = "kotlin-draw-once")
        val again = first.drawFromStock(requestId = "kotlin-draw-once")
        assertEquals(once.view.version, again.view.version)
        assertEquals(once, again)
        assertEquals(before.handCount + 1, first.view().handCount)
        val card = first.view().handList.first().id
        val reused = assertThrows<RaminoException.InvalidArgument> { first.discard(card, requestId = "kotlin-draw-once") }
        assertEquals(Reasons.REQUEST_ID_REUSED, reused.reason)
        assertEquals(before.version + 1, other.view().version)
    }
}
