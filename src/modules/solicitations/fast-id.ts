const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * An opaque id shaped like cuid2 (24 lower-case base-36 characters, starting with a letter) from
 * 23 random bytes of the platform CSPRNG (~118 bits). cuid2's hashing costs ~0.3 ms an id in
 * workerd, which is 1.5 s of a 5,000-contact send for the solicitations and as much for their events.
 */
export function fastId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let id = ALPHABET[10 + (bytes[0]! % 26)]!;
  for (let i = 1; i < 24; i++) id += ALPHABET[bytes[i]! % 36];
  return id;
}
