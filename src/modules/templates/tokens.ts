/** Tokens every template may use; each location may add its own (location variables). */
export const BUILTIN_TOKENS = [
  "firstName",
  "lastName",
  "fullName",
  "locationName",
  "brandName",
  "reviewLink",
  "feedbackLink",
  "unsubscribeLink",
] as const;

/** A token name: a letter, then letters, digits or underscores, at most 64 characters. */
export const TOKEN_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** `{{ name }}`, spaces inside the braces allowed; whatever sits between the braces is captured. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

export const isBuiltinToken = (key: string) => BUILTIN_TOKENS.some((t) => t.toLowerCase() === key.toLowerCase());

/** The distinct placeholders of the given texts, in order of first appearance (valid or not). */
export function extractTokens(...texts: (string | null | undefined)[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    for (const m of (text ?? "").matchAll(PLACEHOLDER)) found.add(m[1]!);
  }
  return [...found];
}

/** Placeholders that are neither built-in nor a custom variable of the tenant. */
export const unknownTokens = (tokens: string[], customKeys: Iterable<string>): string[] => {
  const known = new Set<string>([...BUILTIN_TOKENS, ...customKeys]);
  return tokens.filter((t) => !TOKEN_NAME.test(t) || !known.has(t));
};

/** Replaces every placeholder with `value(name)`. */
export const replaceTokens = (text: string, value: (name: string) => string): string =>
  text.replace(PLACEHOLDER, (_, name: string) => value(name));
