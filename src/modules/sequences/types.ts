import type { BlockedReason, MessageChannel, SolicitationStatus } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";

/** What the drip sweep asks for: the next step of one contact's sequence. */
export interface SequenceStepRequest {
  locationId: string;
  contactId: string;
  campaignId: string;
  channel: MessageChannel;
  /** the step's template; null: the campaign's bindings for the channel decide */
  templateId: string | null;
  /** stored on the solicitation as sequenceStepIndex */
  sequenceStepIndex: number;
  /**
   * Stable for (enrollment, step). A sweep only retries a step whose first attempt died half-way,
   * so the creator must create at most one solicitation per key (e.g. its idempotency key).
   */
  idempotencyKey: string;
  metadata: { sequenceEnrollmentId: string; originSolicitationId: string };
}

export interface CreatedSolicitation {
  id: string;
  status: SolicitationStatus;
  blockedReason: BlockedReason | null;
}

/**
 * Creates one solicitation through the sending policy (PENDING and queued, or BLOCKED), exactly as
 * POST /v1/solicitations does, for ctx.tenantId with a system actor. The sending module provides it
 * (solicitations/sequence-step.ts); the composition root (src/wiring.ts) hands it to the drip sweep.
 */
export type SolicitationCreator = (ctx: ServiceContext, step: SequenceStepRequest) => Promise<CreatedSolicitation>;
