import type { RuleCondition } from "../../db/schema";
import type { ValidationIssue } from "../../lib/errors";
import { valueAt } from "../../lib/event-context";
import type { EventType } from "../../lib/events";
import { type FieldKind, payloadFields } from "../events/catalogue";

const ORDERED = new Set(["gt", "gte", "lt", "lte"]);

function scalarIssue(kind: FieldKind, value: unknown): string | null {
  if (value === null) return kind.nullable ? null : "this field is never null";
  const type = kind.type === "array" ? kind.of : kind.type;
  if (typeof value !== type) return `must be a ${type}`;
  if (kind.type !== "array" && kind.options && !kind.options.includes(value as string))
    return `must be one of ${kind.options.join(", ")}`;
  return null;
}

/** Checks each condition against the trigger's payload schema: a known field, an operator that fits its type, a value of that type. */
export function conditionIssues(type: EventType, conditions: RuleCondition[]): ValidationIssue[] {
  const fields = payloadFields(type);
  const issues: ValidationIssue[] = [];
  conditions.forEach((c, i) => {
    const at = (k: string) => `conditions.${i}.${k}`;
    const kind = fields.get(c.field);
    if (!kind) {
      issues.push({
        path: at("field"),
        message: `${type} has no field "${c.field}"; fields: ${[...fields.keys()].join(", ")}`,
      });
      return;
    }
    if (ORDERED.has(c.op) && kind.type !== "number") {
      issues.push({ path: at("op"), message: `${c.op} needs a number field; ${c.field} is ${kind.type}` });
      return;
    }
    if (c.op === "contains" && kind.type !== "array" && kind.type !== "string") {
      issues.push({ path: at("op"), message: `contains needs a list or text field; ${c.field} is ${kind.type}` });
      return;
    }
    if ((c.op === "eq" || c.op === "neq" || c.op === "in") && kind.type === "array") {
      issues.push({ path: at("op"), message: `${c.field} is a list: use contains` });
      return;
    }
    if (c.op === "in") {
      if (!Array.isArray(c.value) || c.value.length === 0)
        issues.push({ path: at("value"), message: "in needs a non-empty array" });
      else
        c.value.forEach((v, j) => {
          const problem = scalarIssue(kind, v);
          if (problem) issues.push({ path: `${at("value")}.${j}`, message: problem });
        });
      return;
    }
    if (Array.isArray(c.value)) {
      issues.push({ path: at("value"), message: `${c.op} needs a single value` });
      return;
    }
    const problem =
      c.op === "contains"
        ? typeof c.value === "string" || typeof c.value === "number"
          ? null
          : "must be a string or number"
        : scalarIssue(kind, c.value);
    if (problem) issues.push({ path: at("value"), message: problem });
  });
  return issues;
}

/** One condition against a payload; a missing field or null fails every comparison except neq. */
export function matches(c: RuleCondition, data: Record<string, unknown>): boolean {
  const actual = valueAt(data, c.field);
  switch (c.op) {
    case "eq":
      return actual === c.value || (actual === undefined && c.value === null);
    case "neq":
      return !(actual === c.value || (actual === undefined && c.value === null));
    case "gt":
      return typeof actual === "number" && actual > (c.value as number);
    case "gte":
      return typeof actual === "number" && actual >= (c.value as number);
    case "lt":
      return typeof actual === "number" && actual < (c.value as number);
    case "lte":
      return typeof actual === "number" && actual <= (c.value as number);
    case "in":
      return Array.isArray(c.value) && c.value.some((v) => v === actual || (v === null && actual === undefined));
    case "contains":
      if (Array.isArray(actual)) return actual.includes(c.value);
      return typeof actual === "string" && actual.toLowerCase().includes(String(c.value).toLowerCase());
  }
}

export const allMatch = (conditions: RuleCondition[], data: Record<string, unknown>) =>
  conditions.every((c) => matches(c, data));
