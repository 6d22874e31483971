import { ApiError, type ValidationIssue } from "../../lib/errors";

/*
 * A form's text as the REST twin's JSON body takes it (pages/locations.tsx, integrations.tsx, messaging.tsx,
 * ...): a browser sends every field as a string, blank when left empty. These only reshape; the twin's zod
 * schema then decides what is valid, with its own messages.
 */

/** Blank is "not given" (PATCH keeps the stored value; POST takes the default). */
export const blankToUndefined = (v: string): string | undefined => (v.trim() === "" ? undefined : v);

/** Blank is "none" (a nullable field cleared). */
export const blankToNull = (v: string): string | null => (v.trim() === "" ? null : v);

/** A number field: blank is null, a number its value, anything else as typed (the schema refuses it). */
export function numberOrNull(v: string): number | string | null {
  const t = v.trim();
  if (t === "") return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** A number field that is never null: blank is "not given". */
export const numberOrUndefined = (v: string): number | string | undefined => numberOrNull(v) ?? undefined;

/** A list typed as words separated by commas, spaces or lines ("s1, s2"). */
export const listOf = (v: string): string[] =>
  v
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** Phrases typed separated by commas or lines ("long wait, rude staff"). */
export const phrasesOf = (v: string): string[] =>
  v
    .split(/[,\n]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** A checkbox: present when ticked, absent otherwise. */
export const ticked = (v: string): boolean => v !== "";

/**
 * Runs a form's action with the REST schema's field paths (`googlePlaceId`, `credentials.apiKey`) named as the
 * form labels them, so a refusal reads "Website: Invalid URL" rather than the API's name for the field;
 * `messages` rewords a message that names API fields itself.
 */
export async function withLabels<T>(
  labels: Record<string, string>,
  run: () => Promise<T>,
  messages: Record<string, string> = {},
): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== "VALIDATION_ERROR") throw e;
    const issues = ((e.details?.issues as ValidationIssue[] | undefined) ?? []).map((i) => ({
      ...i,
      path: labels[i.path] ?? i.path,
      message: messages[i.message] ?? i.message,
    }));
    throw new ApiError(e.code, e.message, { ...e.details, issues }, e.headers);
  }
}
