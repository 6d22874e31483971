import type { ZodType } from "zod";
import { EVENT_PAYLOADS, EVENT_TYPES, type EventType } from "../../lib/event-catalogue";

/** The synthetic event POST /v1/webhooks/{id}/test sends; it is not on the EVENTS queue. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

export const isEventType = (t: string): t is EventType => (EVENT_TYPES as readonly string[]).includes(t);

export type FieldKind =
  | { type: "string" | "number" | "boolean"; nullable: boolean; options?: string[] }
  | { type: "array"; nullable: boolean; of: "string" | "number" };

type Def = {
  type: string;
  innerType?: ZodType;
  element?: ZodType;
  entries?: Record<string, string>;
  shape?: Record<string, ZodType>;
};
const defOf = (s: ZodType) => (s as unknown as { def: Def }).def;

function kindOf(schema: ZodType): FieldKind | "object" | null {
  let s = schema;
  let nullable = false;
  while (["nullable", "optional"].includes(defOf(s).type)) {
    nullable = true;
    s = defOf(s).innerType!;
  }
  const d = defOf(s);
  switch (d.type) {
    case "string":
    case "number":
    case "boolean":
      return { type: d.type, nullable };
    case "enum":
      return { type: "string", nullable, options: Object.values(d.entries!) };
    case "array": {
      const el = defOf(d.element!).type;
      return el === "number" ? { type: "array", nullable, of: "number" } : { type: "array", nullable, of: "string" };
    }
    case "object":
      return "object";
    default:
      return null;
  }
}

/** Dotted field paths of an event type's payload (nested objects flattened) and their kinds. */
export function payloadFields(type: EventType): Map<string, FieldKind> {
  const out = new Map<string, FieldKind>();
  const walk = (schema: ZodType, prefix: string) => {
    const shape = (schema as unknown as { shape: Record<string, ZodType> }).shape;
    for (const [key, child] of Object.entries(shape)) {
      const k = kindOf(child);
      if (k === "object") walk(child, `${prefix}${key}.`);
      else if (k) out.set(`${prefix}${key}`, k);
    }
  };
  walk(EVENT_PAYLOADS[type], "");
  return out;
}
