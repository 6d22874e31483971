/** Characters of the source text an inbox item keeps for the list view. */
export const EXCERPT_LENGTH = 160;

/** The first EXCERPT_LENGTH characters of the text (whitespace collapsed), with an ellipsis when cut. */
export function excerptOf(text: string | null | undefined): string | null {
  const t = text?.replace(/\s+/g, " ").trim();
  if (!t) return null;
  return t.length > EXCERPT_LENGTH ? `${t.slice(0, EXCERPT_LENGTH - 1)}…` : t;
}
