import { type CountryCode, parsePhoneNumberFromString } from "libphonenumber-js/max";

/** Lower case, no diacritics, single spaces: the form names are indexed and searched in. */
export const foldText = (s: string): string =>
  s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();

/** The two prefix-searchable name keys: "first last" and "last first". */
export function nameKeys(firstName: string | null, lastName: string | null) {
  const first = foldText(firstName ?? "");
  const last = foldText(lastName ?? "");
  if (!first && !last) return { nameKey: null, nameKeyReversed: null };
  return { nameKey: [first, last].filter(Boolean).join(" "), nameKeyReversed: [last, first].filter(Boolean).join(" ") };
}

const DEFAULT_PHONE_REGION: CountryCode = "US";

/** The region of a BCP 47 tag ("en-GB" -> GB), used to read a national-format phone number. */
function regionOf(locale: string | null | undefined): CountryCode {
  if (!locale) return DEFAULT_PHONE_REGION;
  try {
    const region = new Intl.Locale(locale).maximize().region;
    return (region as CountryCode | undefined) ?? DEFAULT_PHONE_REGION;
  } catch {
    return DEFAULT_PHONE_REGION;
  }
}

/**
 * E.164 form of a phone number, or null when it is not a valid number. "+..." is read as
 * international; anything else as national in the region of the contact's locale (default US).
 */
export function toE164(input: string, locale?: string | null): string | null {
  const parsed = parsePhoneNumberFromString(input.trim(), regionOf(locale));
  return parsed?.isValid() ? parsed.number : null;
}

/** [low, high) bounds that select every string starting with the prefix on a BINARY index. */
export function prefixRange(prefix: string): [string, string] {
  const points = [...prefix];
  // the last code point cannot be incremented past U+10FFFF: widen to the shorter prefix
  while (points.length && points[points.length - 1]!.codePointAt(0)! >= 0x10ffff) points.pop();
  const last = points.pop();
  if (last === undefined) return [prefix, "\u{10FFFF}\u{10FFFF}"];
  return [prefix, points.join("") + String.fromCodePoint(last.codePointAt(0)! + 1)];
}

/** The phone prefix a search term stands for ("+1 (212) 55" -> "+121255"), or null if it is not phone-like. */
export function phoneSearchPrefix(term: string): string | null {
  if (!/^\+?[\d\s().-]+$/.test(term)) return null;
  const digits = term.replace(/\D/g, "");
  return digits.length ? `+${digits}` : null;
}
