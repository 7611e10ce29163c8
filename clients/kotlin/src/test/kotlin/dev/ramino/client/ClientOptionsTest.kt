package dev.ramino.client

import io.grpc.Status
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

class ClientOptionsTest : LiveServerTest() {
    @Test
    fun `retry waits grow by the multiplier up to the cap, within the jitter, and stop after the attempts`() {
        val policy = RetryPolicy(attempts = 6, initialBackoff = 100.milliseconds, maxBackoff = 400.milliseconds, multiplier = 2.0, jitter = 0.2)
        val delays = policy.delays()
        val waits = generateSequence { delays.next() }.toList()
        assertEquals(5, waits.size)
        val nominal = listOf(100, 200, 400, 400, 400)
        waits.zip(nominal).forEach { (wait, n) ->
            assertTrue(wait.inWholeMicroseconds in (n * 800L)..(n * 1200L), "$wait is not $n ms ±20 %")
        }
        assertNull(RetryPolicy.NONE.delays().next())
    }

    @Test
    fun `a bad retry policy, target or TLS pairing is refused by name`() {
        assertEquals("RetryPolicy.attempts must be at least 1, not 0", assertThrows<IllegalArgumentException> { RetryPolicy(attempts = 0) }.message)
        assertThrows<IllegalArgumentException> { RetryPolicy(multiplier = 0.5) }
        assertThrows<IllegalArgumentException> { RetryPolicy(jitter = 1.5) }
        assertThrows<IllegalArgumentException> { RetryPolicy(initialBackoff = 2.seconds, maxBackoff = 1.seconds) }
        assertThrows<IllegalArgumentException> { RaminoClient(" ") }
        val e = assertThrows<IllegalArgumentException> { Tls(clientCertificatePem = ByteArray(1)) }
        assertEquals("Tls: clientCertificatePem and clientKeyPem go together", e.message)
    }

    @Test
    fun `a TLS client really speaks TLS - the plaintext server cannot answer it`() = runBlocking {
        val options = ClientOptions(tls = Tls(), retry = RetryPolicy.NONE, timeout = 20.seconds)
        RaminoClient(server.address, options).use { tls ->
            val e = assertThrows<RaminoException.Unavailable> { tls.listVariants() }
            assertEquals("UNAVAILABLE", e.reason)
        }
        assertTrue(client.listVariants().isNotEmpty(), "the same server answers a plaintext client")
    }

    @Test
    fun `what the collector of a watch throws passes through it, not taken for a dropped stream`() = runBlocking {
        val game = client.createGame(GameSpec("rummy", listOf(person("ann"), person("bob"))))
        val watch = client.watch(game.name)
        val thrown = RaminoException.make(Status.Code.UNAVAILABLE, "UNAVAILABLE", "from the collector")
        val e = assertThrows<RaminoException.Unavailable> { watch.collect { throw thrown } }
        assertSame(thrown, e)
        assertEquals(0, watch.reconnects)
        assertTrue(watch.lastVersion != null, "the item it threw on was not counted as seen")
    }

    @Test
    fun `every call carries the caller key, and a key given is the key sent`() = runBlocking {
        val key = RaminoClient.newCallerKey()
        RaminoClient(server.address, ClientOptions(callerKey = key)).use { first ->
            RaminoClient(server.address, ClientOptions(callerKey = key)).use { second ->
                assertEquals(key, first.callerKey)
                val spec = GameSpec("rummy", listOf(person("ann"), person("bob")), requestId = "kotlin-same-key")
                val made = first.createGame(spec)
                assertEquals(made.name, second.createGame(spec).name, "the same key and request id made another game")
                assertTrue(client.createGame(spec).name != made.name, "another key shares the first's request ids")
            }
        }
    }
}
