/** Random identifiers made on the client: caller keys and request ids. */

function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}

/** A random UUID (version 4): a fresh request id. Works where `crypto.randomUUID` is missing (plain-http pages). */
export function newRequestId(): string {
  const b = randomBytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A random secret of 32 bytes, URL-safe base64: a fresh caller key. */
export function newCallerKey(): string {
  const text = btoa(String.fromCharCode(...randomBytes(32)));
  return text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
