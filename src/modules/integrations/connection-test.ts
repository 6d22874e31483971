import type { ServiceContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { crmClient } from "../../providers/crm";
import { type FetchFn, ReviewSiteError, reviewSiteClient } from "../../providers/review-sites";
import { crmConnection, findIntegrationRow, siteConnection } from "./service";

/**
 * POST /v1/integrations/{id}/test: one cheap authenticated read against the provider (a CRM's
 * contact list with limit 1, a review site's first page of reviews). A refusal is a 200 with
 * ok false and the provider's status and message: the test itself worked.
 */
export async function testIntegration(ctx: ServiceContext, id: string, fetchFn: FetchFn = (...a) => fetch(...a)) {
  const row = await findIntegrationRow(ctx, id);
  const checkedAt = nowIso();
  const base = { connectorType: row.connectorType, checkedAt };
  try {
    const crm = await crmConnection(ctx.env, row);
    if (crm) {
      await crmClient(crm, fetchFn).testConnection();
    } else {
      const site = await siteConnection(ctx.env, row);
      if (!site)
        return { ...base, ok: false, upstreamStatus: null, message: `No connection test for ${row.connectorType}` };
      await reviewSiteClient(site, fetchFn).listReviews(null);
    }
    return { ...base, ok: true, upstreamStatus: null, message: "Connected" };
  } catch (err) {
    if (err instanceof ReviewSiteError)
      return { ...base, ok: false, upstreamStatus: err.status || null, message: err.message };
    throw err;
  }
}
