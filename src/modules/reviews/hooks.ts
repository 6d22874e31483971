import type { BatchItem } from "drizzle-orm/batch";
import type { PendingEvent } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";

export interface ConvertedSolicitation {
  solicitationId: string;
  reviewId: string;
  /** when the review was written (publishedAt, else ingestion time) */
  occurredAt: string;
}

export interface ConversionWrites {
  statements: BatchItem<"sqlite">[];
  events: PendingEvent[];
}

/**
 * Statements and events to commit in the same batch as a new review that names a solicitation.
 * The solicitations module provides it (src/modules/solicitations/hooks.ts): it sets the solicitation's
 * convertedAt and emits solicitation.converted, and throws a VALIDATION_ERROR for an unknown
 * solicitation.
 */
export type SolicitationConversionHook = (ctx: ServiceContext, c: ConvertedSolicitation) => Promise<ConversionWrites>;
