package dev.ramino.client

import dev.ramino.client.bot.Bot
import kotlinx.coroutines.async
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import ramino.v1.GameOuterClass.Move.MoveCase
import java.io.File
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import javax.net.ssl.SSLHandshakeException
import javax.net.ssl.SSLPeerUnverifiedException
import kotlin.time.Duration.Companion.minutes

/**
 * [Tls] against a `ramino serve` that speaks TLS, and one that asks for a
 * client certificate (mutual TLS). The certificates come from a CA made per
 * run in a temporary folder, by the repository's tests/support/tls.py (the
 * `cryptography` package of .venv): a server certificate for localhost and
 * 127.0.0.1, a client certificate of the same CA, and one of another CA.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsTest {
    private lateinit var dir: File
    private lateinit var tlsServer: TestServer
    private lateinit var mutualServer: TestServer

    private fun pem(name: String): ByteArray = File(dir, name).readBytes()

    private val ca: ByteArray get() = pem("ca/ca.pem")

    @BeforeAll
    fun start() {
        dir = Files.createTempDirectory("ramino-kotlin-tls").toFile()
        makeCertificates(dir)
        val flags = listOf("--tls-cert-file", File(dir, "server.pem").path, "--tls-key-file", File(dir, "server-key.pem").path)
        tlsServer = TestServer(args = flags, plaintextHealth = true).start()
        mutualServer = TestServer(args = flags + listOf("--tls-client-ca-file", File(dir, "ca/ca.pem").path), plaintextHealth = true).start()
    }

    @AfterAll
    fun stop() {
        if (::tlsServer.isInitialized) tlsServer.stop()
        if (::mutualServer.isInitialized) mutualServer.stop()
        dir.deleteRecursively()
    }

    private fun client(server: TestServer, tls: Tls?, retry: RetryPolicy = FAST_RETRY): RaminoClient =
        RaminoClient(server.address, ClientOptions(retry = retry, tls = tls))

    /**
     * A call through a channel that TLS refuses: UNAVAILABLE, as a typed
     * error, with no retry. [because]: the client's own verdict among the
     * causes (a refusal by the server is only a dropped connection).
     */
    private fun assertRefused(server: TestServer, tls: Tls?, because: Class<out Throwable>? = null) {
        client(server, tls, RetryPolicy.NONE).use { c ->
            val e = assertThrows<RaminoException.Unavailable> { runBlocking { c.listVariants() } }
            assertEquals("UNAVAILABLE", e.codeName)
            if (because != null) {
                val causes = generateSequence(e as Throwable) { it.cause }.toList()
                assertTrue(causes.any { because.isInstance(it) }, "no ${because.simpleName} among $causes")
            }
        }
    }

    @Test
    fun `a client trusting the CA plays a game against a bot, watched, over TLS`(): Unit = runBlocking {
        withTimeout(3.minutes) {
            client(tlsServer, Tls(trustCertificatesPem = ca)).use { c ->
                val created = c.createGame(GameSpec("rummy", listOf(person("ann"), greedyBot()), ONE_ROUND))
                val seat = c.joinGame(created.name, "ann")
                assertTrue(seat.lastView!!.handCount > 0, "joined with no cards")
                val spectator = async { c.watch(created.name).toList() }
                val view = Bot.play(seat)
                val watched = spectator.await()

                assertEquals(GameStatus.GAME_STATUS_FINISHED, view.status)
                assertTrue(view.winnersCount > 0, "no winner")
                assertTrue(watched.first().hasSnapshot(), "the feed starts with ${watched.first()}")
                assertTrue(watched.last().event.hasMatchEnded(), "the feed ends with ${watched.last()}")
                assertEquals(view.version, watched.last().version)
                assertTrue(consecutive(watched), "the feed's versions are not consecutive")
                val ours = watched.count { it.hasEvent() && it.event.hasSeat() && it.event.seat == seat.number && !it.event.hasSeatJoined() }
                assertTrue(ours > 0, "the seat made no move")
            }
        }
    }

    @Test
    fun `a client without the CA, or in plaintext, is refused`() {
        assertRefused(tlsServer, Tls(), SSLHandshakeException::class.java)
        assertRefused(tlsServer, null)
    }

    @Test
    fun `the authority is the name checked against the certificate`() {
        assertRefused(tlsServer, Tls(trustCertificatesPem = ca, authority = "ramino.games.test"), SSLPeerUnverifiedException::class.java)
        client(tlsServer, Tls(trustCertificatesPem = ca, authority = "localhost")).use { c ->
            val names = runBlocking { c.listVariants() }.map { it.name }
            assertTrue("rummy" in names, "variants: $names")
        }
    }

    @Test
    fun `mutual TLS refuses a client without a certificate of the CA`() {
        assertRefused(mutualServer, Tls(trustCertificatesPem = ca))
        assertRefused(mutualServer, Tls(trustCertificatesPem = ca, clientCertificatePem = pem("stranger.pem"), clientKeyPem = pem("stranger-key.pem")))
    }

    @Test
    fun `mutual TLS accepts the CA's client certificate`(): Unit = runBlocking {
        withTimeout(2.minutes) {
            val tls = Tls(trustCertificatesPem = ca, clientCertificatePem = pem("client.pem"), clientKeyPem = pem("client-key.pem"))
            client(mutualServer, tls).use { c ->
                val created = c.createGame(GameSpec("rummy", listOf(person("ann"), greedyBot()), ONE_ROUND))
                val seat = c.joinGame(created.name, "ann")
                assertEquals(GameStatus.GAME_STATUS_PLAYING, c.getGame(created.name).status)
                // The seat's feed until it may draw (the bot, on turn first, plays at once), then a draw.
                val legal = seat.watch().map { seat.legalMoves() }.first { l -> l.movesList.any { it.moveCase == MoveCase.DRAW_FROM_STOCK } }
                val hand = seat.view().handCount
                val drawn = seat.drawFromStock(expectedVersion = legal.version)
                assertEquals(hand + 1, drawn.view.handCount, "the draw did not add a card")
                assertTrue(drawn.eventsList.any { it.hasDrewFromStock() }, "no draw among ${drawn.eventsList}")
                val view = drawn.view
                val snapshot = c.watch(created.name).first()
                assertTrue(snapshot.hasSnapshot(), "the spectator's feed starts with $snapshot")
                assertTrue(snapshot.version >= view.version, "the snapshot is older than the seat's view")
            }
        }
    }

    private companion object {
        /** The CA and its certificates, written into [dir] by tests/support/tls.py. */
        fun makeCertificates(dir: File) {
            val python = File(REPO, ".venv/bin/python")
            check(python.canExecute()) { "$python is missing: run `make build` first" }
            val process = ProcessBuilder(python.path, "-m", "tests.support.tls", dir.path).directory(REPO).redirectErrorStream(true).start()
            val output = process.inputStream.bufferedReader().readText()
            check(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0) { "the certificates were not made:\n$output" }
        }
    }
}
