// How the page tells an outage (retried) from a refusal no retry changes
// (said once, in words): src/refusals.ts, compiled by `npm run test:unit`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, ConnectError, ServiceError } from "@ramino/client/web";
import { isOutage, refusalText } from "../build/unit/refusals.js";
import { setLang } from "../build/unit/words.js";

const refused = (code, reason, detail = "") => new ServiceError(code, reason, detail);

test("an outage is retried: the server away, a cut stream, a proxy's own answer, a server out of room", () => {
  assert.ok(isOutage(refused(Code.Unavailable, "UNAVAILABLE", "upstream connect error or disconnect/reset before headers")));
  assert.ok(isOutage(refused(Code.Canceled, "CANCELLED")));
  assert.ok(isOutage(refused(Code.Unknown, "UNKNOWN")));
  assert.ok(isOutage(refused(Code.ResourceExhausted, "SERVER_STREAMS_FULL")));
  assert.ok(isOutage(new TypeError("Failed to fetch")));
  // A raw stream's error reads the same as the SDK's.
  assert.ok(isOutage(new ConnectError("upstream connect error", Code.Unavailable)));
});

test("a refusal no retry changes is not an outage", () => {
  for (const [code, reason] of [
    [Code.PermissionDenied, "SPECTATING_DISABLED"],
    [Code.NotFound, "GAME_NOT_FOUND"],
    [Code.NotFound, "INVITE_NOT_VALID"],
    [Code.Unauthenticated, "PLAYER_TOKEN_MISSING"],
    [Code.FailedPrecondition, "NOT_YOUR_TURN"],
    [Code.ResourceExhausted, "REQUEST_TOO_LARGE"],
  ]) {
    assert.ok(!isOutage(refused(code, reason)), reason);
  }
});

test("a refusal is said in the page's words with what to do; an outage never in a proxy's words", () => {
  setLang("en");
  assert.match(refusalText(refused(Code.PermissionDenied, "SPECTATING_DISABLED")), /cannot be watched.*invite link/);
  assert.match(refusalText(refused(Code.Unauthenticated, "PLAYER_TOKEN_MISSING")), /open the game from the app/);
  assert.equal(refusalText(refused(Code.Unavailable, "UNAVAILABLE", "upstream connect error")), "The server is not answering.");
  // A move's refusal keeps the server's explanation and its reason code.
  assert.equal(refusalText(refused(Code.FailedPrecondition, "MUST_DRAW_FIRST", "draw a card first")), "draw a card first (MUST_DRAW_FIRST)");
  setLang("it");
  assert.match(refusalText(refused(Code.NotFound, "GAME_NOT_FOUND")), /Questa partita non esiste/);
  setLang("uk");
  assert.notEqual(refusalText(refused(Code.NotFound, "GAME_NOT_FOUND")), refusalText(refused(Code.NotFound, "INVITE_NOT_VALID")));
  setLang("en");
});
