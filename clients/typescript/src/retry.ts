/**
 * How calls are retried on UNAVAILABLE or a server's CANCELLED. Mutating
 * calls keep their `requestId` across retries, so the server applies a move
 * once and answers a retry with its first answer.
 */
export interface RetryPolicy {
  /** Tries in all, the first included; a watch counts failures in a row. */
  readonly attempts: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly multiplier: number;
  /** Each delay is randomised by up to this fraction, either way. */
  readonly jitter: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 10,
  initialBackoffMs: 100,
  maxBackoffMs: 2000,
  multiplier: 2,
  jitter: 0.2,
};

export const NO_RETRY: RetryPolicy = { ...DEFAULT_RETRY, attempts: 1 };

/** The waits (ms) before the 2nd, 3rd ... attempts. */
export function* delays(policy: RetryPolicy): Generator<number, void, undefined> {
  let delay = policy.initialBackoffMs;
  for (let i = 0; i < Math.max(policy.attempts - 1, 0); i++) {
    yield delay * (1 + (Math.random() * 2 - 1) * policy.jitter);
    delay = Math.min(delay * policy.multiplier, policy.maxBackoffMs);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
