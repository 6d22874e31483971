import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../../lib/context";

export interface ConvertedSolicitation {
  solicitationId: string;
  reviewId: string;
  /** when the review was written (publishedAt, else ingestion time) */
  occurredAt: string;
}

/**
 * Statements to run in the same batch as a new review that names a solicitation. [sending] registers
 * the hook that sets the solicitation's convertedAt, stops its drip sequence and emits
 * solicitation.converted; it may throw a VALIDATION_ERROR for an unknown solicitation.
 * Until then the solicitationId is stored and nothing else happens.
 */
export type SolicitationConversionHook = (ctx: ServiceContext, c: ConvertedSolicitation) => Promise<BatchItem<"sqlite">[]>;

let conversionHook: SolicitationConversionHook | null = null;

export const registerSolicitationConversionHook = (hook: SolicitationConversionHook) => {
  conversionHook = hook;
};

export const solicitationConversionStatements = (ctx: ServiceContext, c: ConvertedSolicitation) =>
  conversionHook ? conversionHook(ctx, c) : Promise.resolve([]);
