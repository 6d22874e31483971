/** Opt-out words (TCPA / FCC 24-18 and carrier practice) that revoke SMS and WhatsApp consent. */
export const STOP_KEYWORDS = ["STOP", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "REVOKE", "STOPALL"] as const;

const STOP_SET = new Set<string>(STOP_KEYWORDS);

/**
 * True when the whole message is an opt-out word, ignoring case, spaces and trailing punctuation:
 * "stop", " Stop! ", "opt out", "OPT-OUT". "Please stop texting me" is not (a person reads that).
 */
export function isStopKeyword(text: string): boolean {
  const word = text
    .normalize("NFKC")
    .toUpperCase()
    .replace(/[\s\-_.!,;:'"]+/g, "");
  return STOP_SET.has(word);
}
