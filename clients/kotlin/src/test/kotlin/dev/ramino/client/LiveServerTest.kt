package dev.ramino.client

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.TestInstance

/** A test class whose tests share one `ramino serve` (memory store) and one client of it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LiveServerTest {
    internal lateinit var server: TestServer
    internal lateinit var client: RaminoClient

    @BeforeAll
    fun startServer() {
        server = TestServer().start()
        client = RaminoClient(server.address, ClientOptions(retry = FAST_RETRY))
    }

    @AfterAll
    fun stopServer() {
        client.close()
        server.stop()
    }
}
