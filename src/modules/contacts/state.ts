import { invalidTransition } from "../../lib/errors";
import type { ContactRow } from "./schemas";

export type ContactState = "active" | "suppressed" | "erased";

/** The contact state machine (spec: States and transitions), as data. */
const MOVES = {
  suppress: { from: ["active"], to: "suppressed" },
  unsuppress: { from: ["suppressed"], to: "active" },
  erase: { from: ["active", "suppressed"], to: "erased" },
  /** consent can be recorded for any contact that still holds personal data */
  recordConsent: { from: ["active", "suppressed"], to: null },
} as const satisfies Record<string, { from: readonly ContactState[]; to: ContactState | null }>;

export type ContactMove = keyof typeof MOVES;

export const stateOf = (c: Pick<ContactRow, "isSuppressed" | "anonymizedAt">): ContactState =>
  c.anonymizedAt ? "erased" : c.isSuppressed ? "suppressed" : "active";

export function assertMove(c: ContactRow, move: ContactMove): void {
  const from = stateOf(c);
  const rule = MOVES[move];
  if (!(rule.from as readonly ContactState[]).includes(from)) throw invalidTransition(from, rule.to ?? move, "Contact");
}
