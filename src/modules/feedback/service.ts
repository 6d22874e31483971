import { controlDb, tenantDb } from "../../db/shards";
import { assertTenantWritable } from "../../db/tenant-fence";
import type { RequestMeta, ServiceContext } from "../../lib/context";
import type { LinkClaims } from "../links/tokens";
import { claimsOf, type Landing, landingFor, type PublicDeps, recordView } from "./landing";
import type { SubmitFeedbackInput } from "./schemas";
import { submitFeedback } from "./submit";

/** A public (unauthenticated) request: no tenant until the token names one. */
export interface PublicRequest extends PublicDeps {
  meta: RequestMeta;
}

/** The token's tenant, acted on by the system actor `public-feedback` (audit rows carry the caller's IP and user agent). */
/** The token's tenant as a context on its shard. */
const publicContext = async (req: PublicRequest, claims: LinkClaims): Promise<ServiceContext> => ({
  db: await tenantDb(req.env, claims.tenantId),
  control: controlDb(req.env),
  env: req.env,
  tenantId: claims.tenantId,
  actor: { type: "system", name: "public-feedback" },
  meta: req.meta,
  defer: req.defer,
});

/** The landing data of a link; counts a landing view (off the request path). 404 for unknown or forged tokens. */
export async function openFeedbackLink(
  req: PublicRequest,
  token: string,
): Promise<{ claims: LinkClaims; landing: Landing }> {
  const claims = await claimsOf(req.env, token);
  const landing = await landingFor(req, claims);
  recordView(req, claims, landing.survey?.id ?? null);
  return { claims, landing };
}

/** GET /v1/f/{token}. */
export async function getFeedbackLanding(req: PublicRequest, token: string) {
  const { landing } = await openFeedbackLink(req, token);
  const { publicBaseUrl, ...rest } = landing;
  return { ...rest, submitUrl: `${publicBaseUrl}/v1/f/${token}` };
}

/** The landing (for the thank-you page) without counting a view. */
export async function feedbackLinkData(req: PublicRequest, token: string) {
  return landingFor(req, await claimsOf(req.env, token));
}

/** POST /v1/f/{token} and the hosted form. The public review links come back to everyone. */
export async function submitFeedbackByToken(req: PublicRequest, token: string, input: SubmitFeedbackInput) {
  const claims = await claimsOf(req.env, token);
  const landing = await landingFor(req, claims);
  await assertTenantWritable(req.env, claims.tenantId);
  const result = await submitFeedback(await publicContext(req, claims), claims, landing, input);
  return { success: true, ...result, reviewLinks: landing.reviewLinks };
}
