import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type SolicitationStatus, solicitations } from "../../db/schema";

/**
 * Solicitation moves after creation, as data. Every write is conditional on the source states, so
 * a duplicate or late report (delivered after bounced, a redelivered queue message) changes nothing.
 *
 *   PENDING -> SENT | FAILED | BLOCKED   (queue consumer: sent, failed, blocked at send time)
 *   SENT -> DELIVERED | BOUNCED | FAILED (provider reports)
 *   DELIVERED -> BOUNCED                 (an asynchronous bounce after the receiving server took it)
 *   BLOCKED, FAILED, BOUNCED             final
 */
export const SOLICITATION_MOVES = {
  send: { from: ["PENDING"], to: "SENT" },
  failSend: { from: ["PENDING"], to: "FAILED" },
  blockAtSend: { from: ["PENDING"], to: "BLOCKED" },
  delivered: { from: ["SENT"], to: "DELIVERED" },
  bounced: { from: ["SENT", "DELIVERED"], to: "BOUNCED" },
  failed: { from: ["SENT"], to: "FAILED" },
  /** a spam complaint means the message arrived */
  complained: { from: ["SENT"], to: "DELIVERED" },
} as const satisfies Record<string, { from: readonly SolicitationStatus[]; to: SolicitationStatus }>;

export type SolicitationMove = keyof typeof SOLICITATION_MOVES;

export const canMove = (move: SolicitationMove, from: SolicitationStatus) =>
  (SOLICITATION_MOVES[move].from as readonly SolicitationStatus[]).includes(from);

/** The conditional update for a move: it applies only while the row is still in a source state. */
export const moveStatement = (
  db: Db,
  id: string,
  move: SolicitationMove,
  set: Partial<typeof solicitations.$inferInsert>,
) =>
  db
    .update(solicitations)
    .set({ ...set, status: SOLICITATION_MOVES[move].to })
    .where(and(eq(solicitations.id, id), inArray(solicitations.status, [...SOLICITATION_MOVES[move].from])));
