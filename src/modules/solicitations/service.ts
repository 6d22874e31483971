import { and, eq } from "drizzle-orm";
import { solicitations } from "../../db/schema";
import type { ServiceContext } from "../../lib/context";
import { ApiError, notFound, validationError } from "../../lib/errors";
import { createSolicitations } from "./create";
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, requestHash } from "./idempotency";
import { type CreateSolicitationInput, type SolicitationDto, toSolicitation } from "./schemas";

export interface KeyedResponse {
  status: 201;
  body: SolicitationDto;
  /** true when this is the stored response of an earlier request with the same key */
  replayed: boolean;
}

/**
 * POST /v1/solicitations. The policy may block the send: the solicitation is still created
 * (BLOCKED, with blockedReason) and answered 201. A reference to another tenant's row is a 400 and
 * frees the key.
 */
export async function createSolicitation(
  ctx: ServiceContext,
  idempotencyKey: string | undefined,
  input: CreateSolicitationInput,
): Promise<KeyedResponse> {
  if (!idempotencyKey)
    throw new ApiError("IDEMPOTENCY_KEY_REQUIRED", "The Idempotency-Key header is required (a UUID per send)");
  const claim = await claimIdempotencyKey(ctx, idempotencyKey, await requestHash(input));
  if (claim.kind === "replay") return { status: 201, body: claim.body as SolicitationDto, replayed: true };
  try {
    const { outcomes } = await createSolicitations(ctx, [{ ...input, idempotencyKey }], {
      finalize: async ([outcome]) =>
        outcome?.ok ? { statements: [completeIdempotencyKey(ctx, idempotencyKey, 201, outcome.solicitation)] } : {},
    });
    const outcome = outcomes[0]!;
    if (!outcome.ok) throw validationError([outcome.issue]);
    return { status: 201, body: outcome.solicitation, replayed: false };
  } catch (e) {
    await releaseIdempotencyKey(ctx, idempotencyKey);
    throw e;
  }
}

export async function findSolicitationRow(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .select()
    .from(solicitations)
    .where(and(eq(solicitations.id, id), eq(solicitations.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Solicitation");
  return row;
}

export const getSolicitation = async (ctx: ServiceContext, id: string) =>
  toSolicitation(await findSolicitationRow(ctx, id));
