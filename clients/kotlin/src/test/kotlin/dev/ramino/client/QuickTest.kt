package dev.ramino.client

import kotlinx.coroutines.async
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import java.security.MessageDigest
import java.util.Base64
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec
import kotlin.time.Duration.Companion.minutes

class QuickTest {
    private val secret = "kotlin-sdk-tests-player-token-secret!"

    /** An HS256 JWT of the host's for [player]. */
    private fun playerToken(player: String): String {
        val enc = Base64.getUrlEncoder().withoutPadding()
        val now = System.currentTimeMillis() / 1000
        val head = enc.encodeToString("""{"alg":"HS256","typ":"JWT"}""".toByteArray())
        val body = enc.encodeToString("""{"sub":"$player","iat":$now,"exp":${now + 600}}""".toByteArray())
        val mac = Mac.getInstance("HmacSHA256").apply { init(SecretKeySpec(secret.toByteArray(), "HmacSHA256")) }
        return "$head.$body." + enc.encodeToString(mac.doFinal("$head.$body".toByteArray()))
    }

    @Test
    fun `quick play matches two players, and rates them`(@TempDir dir: File) {
        val file = File(dir, "player-secret").apply { writeText(secret) }
        withServer(args = listOf("--player-token-secret-file", file.path)) { server ->
            runBlocking {
                withTimeout(3.minutes) {
                    fun client(who: String) = RaminoClient(server.address, ClientOptions(retry = FAST_RETRY, playerToken = playerToken(who)))
                    client("ann").use { ann ->
                        client("bob").use { bob ->
                            val states = mutableListOf<TicketState>()
                            val annSeat = async { ann.quick.play(TicketSpec("rummy", "ann", maxSeats = 2)) { states += it.state } }
                            val bobSeat = bob.quick.play(TicketSpec("rummy", "bob", maxSeats = 2))
                            val annSeatNow = annSeat.await()
                            assertEquals(TicketState.TICKET_STATE_SEARCHING, states.first())
                            assertEquals(TicketState.TICKET_STATE_MATCHED, states.last())
                            assertEquals(annSeatNow.name, bobSeat.name)
                            assertNotEquals(annSeatNow.number, bobSeat.number)
                            bobSeat.resign()

                            val rating = bob.quick.rating("rummy")
                            assertEquals(2, rating.rank)
                            assertEquals(1, rating.rating.games)
                            val board = bob.quick.leaderboard("rummy", pageSize = 10)
                            assertEquals(listOf("ann", "bob"), board.entriesList.map { it.player })
                            val games = bob.quick.games()
                            assertEquals(1, games.size)
                            assertTrue(games.single().rated)
                            val record = bob.quick.record(bobSeat.name)
                            val hash = MessageDigest.getInstance("SHA-256").digest(record.seed.toByteArray())
                            assertEquals(record.seedHash, hash.joinToString("") { "%02x".format(it) })
                        }
                    }
                }
            }
        }
    }

    @Test
    fun `a party plays together, and clauses decide who meets`(@TempDir dir: File) {
        val file = File(dir, "player-secret").apply { writeText(secret) }
        withServer(args = listOf("--player-token-secret-file", file.path)) { server ->
            runBlocking {
                withTimeout(3.minutes) {
                    fun client(who: String) = RaminoClient(server.address, ClientOptions(retry = FAST_RETRY, playerToken = playerToken(who)))
                    client("ann").use { ann ->
                        client("bob").use { bob ->
                            val party = ann.quick.createParty("Ann")
                            val invited = ann.quick.inviteToParty(party.name, "bob")
                            assertEquals(listOf("bob"), bob.quick.joinParty(party.name, invited.invitation, "Bob").membersList.map { it.player })
                            val bobSeat = async { bob.quick.partyPlay(party.name) }
                            var last: TicketUpdate? = null
                            val annSeat = ann.quick.play(TicketSpec("rummy", "Ann", maxSeats = 2, party = party.name)) { last = it }
                            assertEquals(annSeat.name, bobSeat.await().name)
                            assertEquals(listOf("bob"), last!!.opponentsList.map { it.player })
                            bob.quick.leaveParty(party.name)
                            assertTrue(ann.quick.getParty(party.name).membersList.isEmpty())

                            val euOnly = listOf(Clause("must", "region", anyOf = listOf("eu")), Clause("must", "ping", max = 80.0))
                            val annAgain = async { ann.quick.play(TicketSpec("rummy", "Ann", maxSeats = 2, clauses = euOnly, ratingBand = 50.0)) }
                            val bobAgain = bob.quick.play(
                                TicketSpec("rummy", "Bob", maxSeats = 2, properties = mapOf("region" to "eu"), numericProperties = mapOf("ping" to 20.0)),
                            )
                            assertEquals(annAgain.await().name, bobAgain.name)
                        }
                    }
                }
            }
        }
    }
}
