/** How failures become the SDK's typed errors, without a server. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { Code, ConnectError, StaleVersion, Unavailable, decodeErrorInfo, errorFromRpc, watchResumable } from "@ramino/client";

function errorInfoBytes(reason: string, domain: string, metadata: Record<string, string>): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, 2).string(reason).tag(2, 2).string(domain);
  for (const [k, v] of Object.entries(metadata)) {
    w.tag(3, 2).fork().tag(1, 2).string(k).tag(2, 2).string(v).join();
  }
  return w.finish();
}

test("an ErrorInfo is read from its wire bytes: reason, domain and metadata", () => {
  const info = decodeErrorInfo(errorInfoBytes("VERSION_MISMATCH", "ramino.v1", { expected: "3", actual: "4" }));
  assert.deepEqual(info, { reason: "VERSION_MISMATCH", domain: "ramino.v1", metadata: { expected: "3", actual: "4" } });
});

test("a server's ABORTED with its ErrorInfo is a StaleVersion; a reset connection reported as ABORTED is Unavailable", () => {
  // As the transport reads it from grpc-status-details-bin: an incoming detail.
  const answered = new ConnectError("stale", Code.Aborted);
  answered.details.push({
    type: "google.rpc.ErrorInfo",
    value: errorInfoBytes("VERSION_MISMATCH", "ramino.v1", { expected: "3", actual: "4" }),
  });
  const stale = errorFromRpc(answered);
  assert.ok(stale instanceof StaleVersion);
  assert.deepEqual([stale.reason, stale.expected, stale.actual], ["VERSION_MISMATCH", 3n, 4n]);

  const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
  const lost = errorFromRpc(new ConnectError("read ECONNRESET", Code.Aborted, undefined, undefined, reset));
  assert.ok(lost instanceof Unavailable);
  assert.equal(lost.reason, "UNAVAILABLE");
  assert.ok(watchResumable(lost));

  const refused = Object.assign(new Error("Stream closed with error code NGHTTP2_REFUSED_STREAM"), {
    code: "ERR_HTTP2_STREAM_ERROR",
  });
  assert.ok(errorFromRpc(new ConnectError("refused", Code.Internal, undefined, undefined, refused)) instanceof Unavailable);
  // Without a transport cause, a status stays what the server said.
  assert.equal(errorFromRpc(new ConnectError("boom", Code.Internal)).code, Code.Internal);
});
