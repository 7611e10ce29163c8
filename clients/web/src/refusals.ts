/**
 * A failed call seen as a person meets it: an outage (the server away, a
 * stream cut, the gateway answering for it), which the page waits out and
 * retries, or a refusal that no retry changes (no such game, a private
 * table, an invite used up, a player token missing), which the page says
 * once in its own words with what to do.
 */
import { Code, ServiceError, errorFromRpc, watchResumable } from "@ramino/client/web";
import { t } from "./words.ts";

/** The call's failure as the SDK's error (a raw stream's ConnectError read the same way). */
export function asServiceError(e: unknown): ServiceError | undefined {
  if (e instanceof ServiceError) return e;
  if (e instanceof Error && e.name === "ConnectError") return errorFromRpc(e);
  return undefined;
}

/**
 * Whether `e` is an outage: the same call may work once the server is
 * back, or has room again (a server whose streams or work are full says
 * RESOURCE_EXHAUSTED: retry later). A failure that is no status at all (the
 * network, a proxy's page) is one too; every other status is the server's
 * answer.
 */
export function isOutage(e: unknown): boolean {
  const error = asServiceError(e);
  if (error === undefined) return true;
  if (error.code === Code.ResourceExhausted) return error.reason !== "REQUEST_TOO_LARGE";
  return watchResumable(error) || [Code.Unknown, Code.Internal, Code.DeadlineExceeded].includes(error.code);
}

/** The reasons the page explains in words of its own, with what to do. */
const WORDS: Readonly<Record<string, string>> = {
  GAME_NOT_FOUND: "refused.gameNotFound",
  SPECTATING_DISABLED: "refused.spectatingDisabled",
  INVITE_NOT_VALID: "refused.inviteNotValid",
  PLAYER_TOKEN_MISSING: "refused.playerTokenMissing",
  PLAYER_TOKEN_INVALID: "refused.playerTokenInvalid",
  PLAYER_TOKEN_EXPIRED: "refused.playerTokenExpired",
  TOKEN_MISSING: "refused.seatToken",
  TOKEN_INVALID: "refused.seatToken",
  TOKEN_EXPIRED: "refused.seatToken",
  BAD_SEAT_CLAIM: "refused.seatToken",
  SEAT_NOT_BOUND: "refused.seatNotBound",
};

/**
 * A refusal in the page's words: what happened and what to do, for the
 * reasons a person meets outside a move; an outage as the server not
 * answering (never a proxy's text); otherwise the server's own explanation
 * with its reason code.
 */
export function refusalText(e: unknown): string {
  if (isOutage(e)) return t("refused.outage");
  const error = asServiceError(e) as ServiceError;
  const key = WORDS[error.reason];
  if (key !== undefined) return t(key);
  const words = error.detail || error.reason.toLowerCase().replace(/_/g, " ");
  return `${words} (${error.reason})`;
}
