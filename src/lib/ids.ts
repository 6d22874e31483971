const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const LENGTH = 24;

/**
 * Opaque id for every resource, shaped like cuid2 (24 lower-case base-36 characters, the first a
 * letter) but drawn straight from the platform CSPRNG: about 123 bits, unbiased (bytes that would
 * favour some characters are skipped). cuid2 hashes each id with SHA-3 and converts it through a
 * big-number library, which profiled at a sixth of the Worker's CPU under mixed load.
 */
export function newId(): string {
  let id = "";
  while (id.length < LENGTH) {
    for (const b of crypto.getRandomValues(new Uint8Array(32))) {
      if (id.length === 0) {
        if (b < 234) id += ALPHABET[10 + (b % 26)]; // 234 = 9 * 26
      } else if (b < 252) {
        id += ALPHABET[b % 36]; // 252 = 7 * 36
      }
      if (id.length === LENGTH) break;
    }
  }
  return id;
}
