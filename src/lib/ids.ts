const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const LENGTH = 24;
/** Character codes: a byte below 252 maps to ALPHABET[b % 36] (252 = 7 * 36, so no character is favoured). */
const CODES = Uint8Array.from({ length: 252 }, (_, b) => ALPHABET.charCodeAt(b % 36));
/** The first character is a letter: a byte below 234 (9 * 26) maps to one of the 26. */
const LETTER_CODES = Uint8Array.from({ length: 234 }, (_, b) => ALPHABET.charCodeAt(10 + (b % 26)));

/**
 * CSPRNG bytes drawn 4 kB at a time (about 160 ids per `getRandomValues` call rather than one call
 * per id: that call was a measurable share of every request, which mints its request id here). Each
 * byte is used once; nothing about the pool depends on the request, so sharing it across requests
 * in an isolate is safe (docs/performance.md, Floor and hot paths, third look).
 */
const pool = new Uint8Array(4096);
let next = pool.length;
function randomByte(): number {
  if (next === pool.length) {
    crypto.getRandomValues(pool);
    next = 0;
  }
  return pool[next++] as number;
}

const chars = new Array<number>(LENGTH);

/**
 * Opaque id for every resource, shaped like cuid2 (24 lower-case base-36 characters, the first a
 * letter) but drawn straight from the platform CSPRNG: about 123 bits, unbiased (bytes that would
 * favour some characters are skipped). cuid2 hashes each id with SHA-3 and converts it through a
 * big-number library, which profiled at a sixth of the Worker's CPU under mixed load.
 */
export function newId(): string {
  let b = randomByte();
  while (b >= 234) b = randomByte();
  chars[0] = LETTER_CODES[b] as number;
  for (let i = 1; i < LENGTH; i++) {
    b = randomByte();
    while (b >= 252) b = randomByte();
    chars[i] = CODES[b] as number;
  }
  return String.fromCharCode(...chars);
}
