package dev.ramino.client

import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/** Private games (issue 34): never listed, joined by an invite code or its link, with the Python SDK's names. */
class PrivateTablesTest : LiveServerTest() {

    @Test
    fun `a friend joins a private game by its link and a wrong code is INVITE_NOT_VALID`(): Unit = runBlocking {
        val created = client.createGame(GameSpec("rummy", listOf(person(""), person("")), private = true))
        assertTrue(created.private && created.inviteCode.isNotEmpty() && created.game.spectatorsDisabled)
        assertFalse(client.listGames().toList().any { it.name == created.name }, "the private game was listed")
        val wrong = assertThrows<RaminoException.NotFound> {
            runBlocking { client.joinInvite(created.inviteCode.dropLast(1), "Eve") }
        }
        assertEquals("INVITE_NOT_VALID", wrong.reason)
        val link = inviteLink("https://play.example/ramino/", created.inviteCode)
        assertEquals("https://play.example/ramino/#invite=${created.inviteCode}", link)
        val mine = client.joinInvite(created.inviteCode, "Ann")
        val theirs = client.joinInvite(link, "Bob")
        assertEquals(listOf(0, 1, created.name), listOf(mine.number, theirs.number, theirs.name))
        // Dealt: the code opens nothing now.
        assertThrows<RaminoException.NotFound> { runBlocking { client.joinInvite(created.inviteCode, "Cid") } }
    }

    @Test
    fun `invite codes are read from links`() {
        val code = "0123456789abcdef.AbC-d_ef"
        for (text in listOf(
            code,
            " $code ",
            inviteLink("https://x.example/#old", code),
            "https://x.example/?invite=$code",
            "https://x.example/?a=1&invite=$code&b=2",
        )) {
            assertEquals(code, inviteCodeOf(text), text)
        }
    }
}
