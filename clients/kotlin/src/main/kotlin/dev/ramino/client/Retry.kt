package dev.ramino.client

import kotlin.random.Random
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/**
 * How calls are retried on UNAVAILABLE and on a CANCELLED the server sent:
 * [attempts] in all (1: no retry), the first wait [initialBackoff], each next
 * one [multiplier] times longer up to [maxBackoff], every wait moved by up to
 * ±[jitter] of itself at random. The same request is sent again, request id
 * included, so the server applies a move once.
 */
public data class RetryPolicy(
    val attempts: Int = 10,
    val initialBackoff: Duration = 100.milliseconds,
    val maxBackoff: Duration = 2.seconds,
    val multiplier: Double = 2.0,
    val jitter: Double = 0.2,
) {
    init {
        require(attempts >= 1) { "RetryPolicy.attempts must be at least 1, not $attempts" }
        require(!initialBackoff.isNegative()) { "RetryPolicy.initialBackoff must not be negative" }
        require(maxBackoff >= initialBackoff) { "RetryPolicy.maxBackoff must be at least initialBackoff" }
        require(multiplier >= 1.0) { "RetryPolicy.multiplier must be at least 1, not $multiplier" }
        require(jitter in 0.0..1.0) { "RetryPolicy.jitter must be within 0 and 1, not $jitter" }
    }

    internal fun delays(): Delays = Delays(this)

    /** The waits before each retry: null once the attempts are spent. */
    internal class Delays(private val policy: RetryPolicy) {
        private var left = policy.attempts - 1
        private var next = policy.initialBackoff

        fun next(): Duration? {
            if (left <= 0) return null
            left--
            val wait = next * (1 + policy.jitter * (2 * Random.nextDouble() - 1))
            next = minOf(next * policy.multiplier, policy.maxBackoff)
            return wait
        }
    }

    public companion object {
        /** 10 attempts, from 100 ms doubling to 2 s, ±20 %. */
        public val DEFAULT: RetryPolicy = RetryPolicy()

        /** One attempt. */
        public val NONE: RetryPolicy = RetryPolicy(attempts = 1)
    }
}

/** Told to [ClientOptions.onRetry] before each retry: the method, the attempt that failed, its error. */
public data class RetryEvent(val method: String, val attempt: Int, val error: RaminoException)
