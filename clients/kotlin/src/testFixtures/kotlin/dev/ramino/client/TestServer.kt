package dev.ramino.client

import io.grpc.CallOptions
import io.grpc.ManagedChannel
import io.grpc.MethodDescriptor
import io.grpc.okhttp.OkHttpChannelBuilder
import io.grpc.stub.ClientCalls
import java.io.ByteArrayInputStream
import java.io.File
import java.io.InputStream
import java.net.InetAddress
import java.net.ServerSocket
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import kotlin.time.Duration.Companion.milliseconds

/** The repository's root: the ramino.repo system property (pom.xml sets it), else found above the working directory. */
internal val REPO: File = run {
    System.getProperty("ramino.repo")?.let { return@run File(it).canonicalFile }
    var dir: File? = File("").absoluteFile
    while (dir != null && !(File(dir, "Makefile").isFile && File(dir, "proto/ramino/v1").isDirectory)) dir = dir.parentFile
    dir ?: error("no repository root (a folder with Makefile and proto/) above ${File("").absolutePath}")
}

/** Seat tokens stay valid across restarts of a server with the same secret. */
internal const val TOKEN_SECRET: String = "kotlin-sdk-tests-secret-kept-across-restarts"

/** Retries quick enough for a test, patient enough for a server restarting on a busy machine. */
internal val FAST_RETRY: RetryPolicy = RetryPolicy(attempts = 80, initialBackoff = 20.milliseconds, maxBackoff = 500.milliseconds, jitter = 0.1)

/** A match of one round (its length is the test's, not the preset's). */
internal val ONE_ROUND: VariantParameters = VariantParameters.newBuilder().setTargetScore(0).setMaxRounds(1).build()

/** A free loopback port (bound on port 0, then released for the server to bind). */
internal fun freePort(): Int = ServerSocket(0, 1, InetAddress.getLoopbackAddress()).use { it.localPort }

/**
 * `ramino serve` of the repository's .venv as a child process on a fixed
 * free port, to stop, kill and start again (a restart keeps the port and,
 * with a sqlite store, the games). [plaintextHealth]: the server also serves
 * its health on a second, plaintext port (`--health-port`), which is where
 * [start] waits for it (a server whose [args] make it speak TLS only).
 */
internal class TestServer(
    private val store: String = "memory",
    private val args: List<String> = emptyList(),
    private val plaintextHealth: Boolean = false,
) : AutoCloseable {
    val port: Int = freePort()
    private val healthPort: Int? = if (plaintextHealth) freePort() else null
    val address: String get() = "127.0.0.1:$port"
    private val log: File = Files.createTempFile("ramino-kotlin-server", ".log").toFile()
    private var process: Process? = null

    fun start(): TestServer {
        val bin = File(REPO, ".venv/bin/ramino")
        check(bin.canExecute()) { "$bin is missing: run `make build` first" }
        val command = listOf(
            bin.path, "serve", "--host", "127.0.0.1", "--port", port.toString(),
            "--store", store, "--bot-delay", "0", "--grace", "1",
        ) + healthPort?.let { listOf("--health-port", it.toString()) }.orEmpty() + args
        val builder = ProcessBuilder(command).directory(REPO).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
        builder.environment().keys.removeIf { it.startsWith("RAMINO_") }
        builder.environment()["RAMINO_LOG_LEVEL"] = "warning"
        builder.environment()["RAMINO_TOKEN_SECRET"] = TOKEN_SECRET
        process = builder.start()
        waitServing()
        return this
    }

    /** SIGTERM: the server drains (--grace 1) and exits. */
    fun stop() = end(force = false)

    /** SIGKILL: no drain, no goodbye. */
    fun kill() = end(force = true)

    private fun end(force: Boolean) {
        val p = process ?: return
        if (force) p.destroyForcibly() else p.destroy()
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
            p.destroyForcibly()
            p.waitFor()
        }
        process = null
    }

    override fun close() = stop()

    fun logTail(): String = log.readText().takeLast(4000)

    private fun waitServing() {
        val channel: ManagedChannel = OkHttpChannelBuilder.forAddress("127.0.0.1", healthPort ?: port).usePlaintext().build()
        try {
            val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
            while (System.nanoTime() < deadline) {
                if (process?.isAlive != true) error("the server exited:\n${logTail()}")
                val serving = runCatching {
                    // grpc.health.v1.Health/Check with an empty request; SERVING is field 1 = 1.
                    val answer = ClientCalls.blockingUnaryCall(
                        channel,
                        HEALTH_CHECK,
                        CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.SECONDS),
                        ByteArray(0),
                    )
                    answer.contentEquals(byteArrayOf(0x08, 0x01))
                }.getOrDefault(false)
                if (serving) return
                Thread.sleep(50)
            }
            error("the server on $address did not come up:\n${logTail()}")
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
        }
    }

    private companion object {
        object Bytes : MethodDescriptor.Marshaller<ByteArray> {
            override fun stream(value: ByteArray): InputStream = ByteArrayInputStream(value)

            override fun parse(stream: InputStream): ByteArray = stream.readBytes()
        }

        val HEALTH_CHECK: MethodDescriptor<ByteArray, ByteArray> = MethodDescriptor.newBuilder(Bytes, Bytes)
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("grpc.health.v1.Health/Check")
            .build()
    }
}

/** A started server, stopped by [block]'s end. */
internal inline fun <T> withServer(store: String = "memory", args: List<String> = emptyList(), block: (TestServer) -> T): T =
    TestServer(store, args).start().use(block)

/** Two people's game of [variant], both joined: the seat on turn first, then the other. */
internal suspend fun twoPeople(client: RaminoClient, variant: String): Pair<Seat, Seat> {
    val game = client.createGame(GameSpec(variant, listOf(person("ann"), person("bob"))))
    val ann = client.joinGame(game.name, "ann")
    val bob = client.joinGame(game.name, "bob")
    val view = ann.view()
    return if (view.turn == ann.number) ann to bob else bob to ann
}

/** Whether the versions of [items] follow each other by one. */
internal fun consecutive(items: List<WatchItem>): Boolean =
    items.isNotEmpty() && items.zipWithNext().all { (a, b) -> b.version == a.version + 1 }
