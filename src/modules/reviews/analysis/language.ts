import { franc } from "franc-min";

/** ISO 639-3 (what franc returns) -> ISO 639-1, for the languages reviews commonly arrive in. */
const ISO_639_1: Record<string, string> = {
  eng: "en",
  spa: "es",
  fra: "fr",
  deu: "de",
  por: "pt",
  ita: "it",
  nld: "nl",
  pol: "pl",
  tur: "tr",
  rus: "ru",
  ukr: "uk",
  swe: "sv",
  dan: "da",
  ces: "cs",
  ron: "ro",
  hun: "hu",
  arb: "ar",
  hin: "hi",
  ind: "id",
  vie: "vi",
  kor: "ko",
  jpn: "ja",
  cmn: "zh",
};

/** Below this, trigram detection guesses more than it knows. */
const MIN_LENGTH = 20;

/** The ISO 639-1 code of the text's language, or null when the text is too short or the language is not one we map. */
export function detectLanguage(text: string | null | undefined): string | null {
  if (!text || text.trim().length < MIN_LENGTH) return null;
  const code = franc(text, { only: Object.keys(ISO_639_1), minLength: MIN_LENGTH });
  return ISO_639_1[code] ?? null;
}
