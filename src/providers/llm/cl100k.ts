// The cl100k_base encoding built from gpt-tokenizer's own `data/cl100k_base.tiktoken` (the format
// OpenAI's tiktoken publishes: one "<base64 token> <rank>" per line), imported as a Text module
// (wrangler.toml [[rules]]). The package's `encoding/cl100k_base` entry holds the same ranks as 1 MB of
// generated JavaScript, which workerd compiles at every isolate's start-up even when nothing imports
// it until the first agent call; a Text module costs nothing to start (docs/performance.md).

import tiktoken from "gpt-tokenizer/data/cl100k_base.tiktoken";
import { GptEncoding } from "gpt-tokenizer/GptEncoding";

type Ranks = (string | number[])[];

/**
 * The ranks array gpt-tokenizer's codegen (src/codegen/generateJsBpe.ts) generates from a .tiktoken
 * file: index = rank; the token as a string when its bytes are whole UTF-8 (and re-encode to the same
 * bytes), else as its byte values; "" for a rank the file skips. A plain loop per line (no atob or
 * TextDecoder for the 90% of tokens that are ASCII): it runs over 100,000 lines once per isolate.
 */
export function parseTiktoken(text: string): Ranks {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const encoder = new TextEncoder();
  const bytes = new Uint8Array(256);
  const ranks: Ranks = [];
  let last = 0;
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf("\n", at);
    if (end === -1) end = text.length;
    const space = text.indexOf(" ", at);
    if (space > at && space < end) {
      const rank = Number.parseInt(text.slice(space + 1, end), 10);
      const n = decodeBase64(text, at, space, bytes);
      for (let hole = rank - last - 1; hole > 0; hole--) ranks.push("");
      ranks.push(token(bytes.subarray(0, n), strict, encoder));
      last = rank;
    }
    at = end + 1;
  }
  return ranks;
}

const BASE64 = new Int8Array(128).fill(-1);
for (const [i, c] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].entries())
  BASE64[c.charCodeAt(0)] = i;

/** Decodes text[from, to) (standard base64, "=" padded) into `out`; returns the byte count. */
function decodeBase64(text: string, from: number, to: number, out: Uint8Array): number {
  let n = 0;
  let bits = 0;
  let value = 0;
  for (let i = from; i < to; i++) {
    const v = BASE64[text.charCodeAt(i)] ?? -1;
    if (v < 0) break; // "=" padding
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (value >> bits) & 0xff;
    }
  }
  return n;
}

function token(bytes: Uint8Array, strict: TextDecoder, encoder: TextEncoder): string | number[] {
  let ascii = true;
  for (const b of bytes) if (b >= 0x80) ascii = false;
  if (ascii) return String.fromCharCode(...bytes);
  try {
    const s = strict.decode(bytes);
    // the decoder drops a leading byte-order mark: such a token is kept as bytes, as the codegen does
    if (encoder.encode(s).byteLength === bytes.byteLength) return s;
  } catch {
    // not whole UTF-8 characters
  }
  return [...bytes];
}

let encoding: GptEncoding | undefined;

/** The encoding, built on first use in an isolate (parsing the file costs ~100 ms of CPU once). */
export function cl100k(): GptEncoding {
  encoding ??= GptEncoding.getEncodingApi("cl100k_base", () => parseTiktoken(tiktoken));
  return encoding;
}
