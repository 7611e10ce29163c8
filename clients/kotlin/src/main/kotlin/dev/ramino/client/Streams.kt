package dev.ramino.client

import io.grpc.Channel
import io.grpc.ManagedChannel
import java.io.Closeable

/**
 * The connections a client's streams (watches, sessions, ticket waits) go
 * on: a stream takes a place on the first connection with fewer than
 * [limit] open, and a new connection to the same target is opened when
 * every one is full; a stream gives its place back when it ends. The
 * server allows a connection 100 streams by default, so one client may
 * hold many seats' sessions at once (a bot farm, a test harness). Unary
 * calls stay on the first connection. With no [open] (a client on a
 * caller's channel) every stream goes on [first].
 */
internal class StreamChannels(
    private val first: Channel,
    private val open: (() -> ManagedChannel)?,
    private val limit: Int,
) {
    private val lock = Any()
    private val more = ArrayList<ManagedChannel>()
    private val counts = arrayListOf(0)

    /** A place for one stream. */
    fun take(): Place = synchronized(lock) {
        var i = if (open == null) 0 else counts.indexOfFirst { it < limit }
        if (i < 0) {
            more.add(open!!())
            counts.add(0)
            i = counts.size - 1
        }
        counts[i]++
        Place(this, i, if (i == 0) first else more[i - 1])
    }

    fun giveBack(index: Int): Unit = synchronized(lock) { counts[index]-- }

    /** The open streams of each connection, the first first. */
    fun open(): List<Int> = synchronized(lock) { counts.toList() }

    /** The connections opened for streams beyond the first. */
    fun opened(): List<ManagedChannel> = synchronized(lock) { more.toList() }

    fun shutdownNow(): Unit = synchronized(lock) { more.forEach { it.shutdownNow() } }
}

/** One stream's place on a connection, given back once by [close]. */
internal class Place(private val of: StreamChannels, private val index: Int, val channel: Channel) : Closeable {
    private var given = false

    override fun close() {
        synchronized(this) {
            if (given) return
            given = true
        }
        of.giveBack(index)
    }
}
