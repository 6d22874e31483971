import type { SurveyQuestion } from "../../db/schema";
import { type ValidationIssue, validationError } from "../../lib/errors";
import type { LandingSurvey } from "./landing";

const RANGES: Partial<Record<SurveyQuestion["type"], [number, number]>> = {
  nps: [0, 10],
  csat: [1, 5],
  ces: [1, 7],
  rating: [1, 5],
};

function problem(q: SurveyQuestion, v: unknown): string | null {
  const range = RANGES[q.type];
  if (range)
    return Number.isInteger(v) && (v as number) >= range[0] && (v as number) <= range[1]
      ? null
      : `an integer ${range[0]} to ${range[1]}`;
  switch (q.type) {
    case "text":
      return typeof v === "string" ? null : "text";
    case "yes_no":
      return typeof v === "boolean" ? null : "true or false";
    case "single_choice":
      return typeof v === "string" && q.options!.includes(v) ? null : `one of: ${q.options!.join(", ")}`;
    case "multiple_choice":
      return Array.isArray(v) && v.every((x) => q.options!.includes(x))
        ? null
        : `a list from: ${q.options!.join(", ")}`;
    default:
      return null;
  }
}

/**
 * Answers checked against the shown survey's questions: unknown question ids, wrong types and
 * missing required answers are a 400 naming each. Blank text answers count as missing. Without a
 * survey the answers are kept as given (API clients with their own questionnaire).
 */
export function checkAnswers(survey: LandingSurvey | null, answers: Record<string, unknown>): Record<string, unknown> {
  if (!survey) return answers;
  const issues: ValidationIssue[] = [];
  const byId = new Map(survey.questions.map((q) => [q.id, q]));
  const kept: Record<string, unknown> = {};
  const answered = new Set<string>();
  for (const [id, raw] of Object.entries(answers)) {
    const q = byId.get(id);
    if (!q) {
      issues.push({ path: `surveyResponses.${id}`, message: "Not a question of this survey" });
      continue;
    }
    const v = typeof raw === "string" ? raw.trim() : raw;
    if (v === "" || (Array.isArray(v) && v.length === 0)) continue;
    answered.add(id);
    const expected = problem(q, v);
    if (expected) issues.push({ path: `surveyResponses.${id}`, message: `Expected ${expected}` });
    else kept[id] = v;
  }
  for (const q of survey.questions) {
    if (q.required && !answered.has(q.id)) issues.push({ path: `surveyResponses.${q.id}`, message: "Required" });
  }
  if (issues.length) throw validationError(issues);
  return kept;
}
