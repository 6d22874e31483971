import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, updatedAt } from "./columns";

export const ENROLLMENT_STATUSES = ["active", "completed", "stopped"] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

/**
 * A contact on its way through a campaign's drip sequence, started by a sent step-0 solicitation.
 * Step n is due at startedAt (step 0's sentAt) + step n's delayDays; the cron sweep seeks on due_at.
 */
export const sequenceEnrollments = sqliteTable(
  "sequence_enrollments",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    campaignId: text("campaign_id").notNull(),
    contactId: text("contact_id").notNull(),
    locationId: text("location_id").notNull(),
    /** the step-0 solicitation: one enrollment per solicitation */
    originSolicitationId: text("origin_solicitation_id").notNull().unique(),
    status: text("status", { enum: ENROLLMENT_STATUSES }).notNull(),
    stopReason: text("stop_reason"),
    /** the last step index created (0 for the origin) */
    lastStepIndex: integer("last_step_index").notNull(),
    nextStepIndex: integer("next_step_index"),
    dueAt: text("due_at"),
    startedAt: text("started_at").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("sequence_enrollments_due_idx").on(t.dueAt, t.id).where(sql`status = 'active'`),
    index("sequence_enrollments_contact_idx").on(t.tenantId, t.contactId),
    index("sequence_enrollments_campaign_idx").on(t.campaignId),
  ],
);

/**
 * The claim on one step of one enrollment: its primary key is why a step is created at most once,
 * whatever the number of overlapping sweeps.
 */
export const sequenceStepRuns = sqliteTable(
  "sequence_step_runs",
  {
    enrollmentId: text("enrollment_id").notNull(),
    stepIndex: integer("step_index").notNull(),
    tenantId: text("tenant_id").notNull(),
    /** null while the creator runs; a claim left null (the isolate died) is retried after a while */
    solicitationId: text("solicitation_id"),
    claimedAt: text("claimed_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.enrollmentId, t.stepIndex] }),
    index("sequence_step_runs_solicitation_idx").on(t.solicitationId),
  ],
);
