import { deref, type Operation, type SchemaObject } from "../helpers/openapi";

const typesOf = (s: SchemaObject) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** A minimal value the schema accepts: required properties only, the first enum value, bounds respected. */
export function validValue(raw: SchemaObject | undefined, depth = 0): unknown {
  const s = deref(raw);
  if (!s || depth > 6) return undefined;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum.find((v) => v !== null && v !== "") ?? s.enum[0];
  if (s.default !== undefined) return s.default;
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return validValue(alt.find((a) => !typesOf(deref(a) ?? {}).includes("null")) ?? alt[0], depth + 1);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((a) => validValue(a, depth + 1)));
  const type = typesOf(s).find((t) => t !== "null") ?? (s.properties ? "object" : "string");
  switch (type) {
    case "object":
      return Object.fromEntries((s.required ?? []).map((k) => [k, validValue(s.properties?.[k], depth + 1)]));
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => validValue(s.items, depth + 1));
    case "integer":
    case "number":
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case "boolean":
      return true;
    default:
      return stringFor(s);
  }
}

function stringFor(s: SchemaObject): string {
  switch (s.format) {
    case "email":
      return "someone@example.test";
    case "date-time":
      return "2026-01-01T00:00:00.000Z";
    case "date":
      return "2026-01-01";
    case "uri":
    case "url":
      return "https://example.com/x";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
  }
  return "x".repeat(Math.max(1, s.minLength ?? 1));
}

export const jsonBodySchema = (op: Operation) => op.requestBody?.content["application/json"]?.schema;
