import { and, count, eq } from "drizzle-orm";
import { integrations } from "../../db/schema";
import type { Env } from "../../env";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { openAtRest, sealAtRest } from "../../lib/crypto";
import { notFound, type ValidationIssue, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, type PageQuery } from "../../lib/pagination";
import { checkOutboundUrl, isLocalEnvironment } from "../../lib/ssrf";
import { nowIso } from "../../lib/time";
import { CRM_REQUIREMENTS, type CrmConnection, isCrm, isSalesforceInstanceUrl } from "../../providers/crm";
import { isReviewSite, SITE_REQUIREMENTS, type SiteConnection } from "../../providers/review-sites";
import { assertLocationRefs } from "../locations/refs";
import {
  BaseUrlField,
  type CreateIntegrationInput,
  type IntegrationRow,
  toIntegration,
  type UpdateIntegrationInput,
} from "./schemas";

export async function listIntegrations(
  ctx: ServiceContext,
  q: PageQuery & { connectorType?: string; locationId?: string },
) {
  const where = and(
    eq(integrations.tenantId, ctx.tenantId),
    q.connectorType ? eq(integrations.connectorType, q.connectorType) : undefined,
    q.locationId ? eq(integrations.locationId, q.locationId) : undefined,
  );
  return keysetPage(ctx.db, {
    query: q,
    sort: [integrations.createdAt, integrations.id],
    rows: (cursor, order, limit) =>
      ctx.db
        .select()
        .from(integrations)
        .where(and(where, cursor))
        .orderBy(...order)
        .limit(limit),
    count: ctx.db.select({ n: count() }).from(integrations).where(where),
    key: (r) => [r.createdAt, r.id],
    map: toIntegration,
  });
}

export async function findIntegrationRow(ctx: ServiceContext, id: string) {
  const row = await ctx.db
    .select()
    .from(integrations)
    .where(and(eq(integrations.id, id), eq(integrations.tenantId, ctx.tenantId)))
    .get();
  if (!row) throw notFound("Integration");
  return row;
}

export const getIntegration = async (ctx: ServiceContext, id: string) =>
  toIntegration(await findIntegrationRow(ctx, id));

/** Checks the connection is usable: the site's required ids and secrets, and base URL overrides only on sandboxes. */
function checkConnection(
  env: Env,
  type: string,
  isSandbox: boolean,
  locationId: string | null,
  config: Record<string, unknown>,
  credentials: Record<string, string> | null,
) {
  const issues: ValidationIssue[] = [];
  if (isCrm(type)) {
    const need = CRM_REQUIREMENTS[type];
    for (const key of need.config) {
      if (typeof config[key] !== "string" || !config[key])
        issues.push({ path: `config.${key}`, message: `Required for ${type}` });
    }
    for (const key of need.credentials) {
      if (!credentials?.[key]) issues.push({ path: `credentials.${key}`, message: `Required for ${type}` });
    }
    // a production connection may only reach Salesforce itself; sandboxes point apiBaseUrl at a stand-in
    if (
      type === "salesforce" &&
      typeof config.instanceUrl === "string" &&
      config.instanceUrl &&
      !isSalesforceInstanceUrl(config.instanceUrl)
    ) {
      issues.push({
        path: "config.instanceUrl",
        message: "Must be an https URL on a Salesforce domain (e.g. https://acme.my.salesforce.com)",
      });
    }
  }
  if (isReviewSite(type)) {
    // synced reviews belong to a location
    if (!locationId) issues.push({ path: "locationId", message: `Required for ${type}` });
    const need = SITE_REQUIREMENTS[type];
    for (const key of need.config) {
      if (typeof config[key] !== "string" || !config[key])
        issues.push({ path: `config.${key}`, message: `Required for ${type}` });
    }
    for (const key of need.credentials) {
      if (!credentials?.[key]) issues.push({ path: `credentials.${key}`, message: `Required for ${type}` });
    }
  }
  for (const key of ["apiBaseUrl", "partnerApiBaseUrl"]) {
    if (config[key] === undefined) continue;
    if (!isSandbox)
      issues.push({ path: `config.${key}`, message: "Only sandbox integrations may override the API base URL" });
    else if (!BaseUrlField.safeParse(config[key]).success)
      issues.push({ path: `config.${key}`, message: "Must be an http(s) URL" });
    else {
      // the service fetches this URL: never the private network, link-local/cloud metadata or other
      // reserved addresses (SSRF); plain http and loopback stand-ins only in a local environment
      const check = checkOutboundUrl(String(config[key]), { allowInsecure: isLocalEnvironment(env) });
      if (!check.ok) issues.push({ path: `config.${key}`, message: `URL refused: ${check.reason}` });
    }
  }
  if (issues.length) throw validationError(issues);
}

/** What an audit row may show: never the sealed credentials. */
const auditable = ({ credentialsEncrypted, ...rest }: IntegrationRow) => ({
  ...rest,
  hasCredentials: credentialsEncrypted !== null,
});

export async function createIntegration(ctx: ServiceContext, input: CreateIntegrationInput) {
  const isSandbox = input.isSandbox ?? false;
  checkConnection(
    ctx.env,
    input.connectorType,
    isSandbox,
    input.locationId ?? null,
    input.config,
    input.credentials ?? null,
  );
  await assertLocationRefs(ctx, [input.locationId]);
  const now = nowIso();
  const row: IntegrationRow = {
    id: newId(),
    tenantId: ctx.tenantId,
    locationId: input.locationId ?? null,
    connectorType: input.connectorType,
    name: input.name,
    isEnabled: input.isEnabled ?? true,
    isSandbox,
    config: input.config,
    credentialsEncrypted: input.credentials
      ? await sealAtRest(ctx.env, JSON.stringify(input.credentials), "Credentials")
      : null,
    syncRequestedAt: null,
    lastSyncAt: null,
    lastSyncStatus: null,
    lastSyncError: null,
    siteVerified: null,
    siteVerifiedAt: null,
    attentionCode: null,
    attentionMessage: null,
    attentionAt: null,
    replyAccess: null,
    replyAccessCheckedAt: null,
    lastWebhookAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await commit(ctx, [
    ctx.db.insert(integrations).values(row),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "integration.created",
      resourceType: "integration",
      resourceId: row.id,
      nextState: auditable(row),
    }),
  ]);
  return toIntegration(row);
}

export async function updateIntegration(ctx: ServiceContext, id: string, patch: UpdateIntegrationInput) {
  const before = await findIntegrationRow(ctx, id);
  const { credentials, ...fields } = patch;
  const after: IntegrationRow = { ...before, ...fields, updatedAt: nowIso() };
  // a person changed the connection: what needed their attention is theirs to have fixed (the next
  // sync says otherwise if not), and new credentials may carry other reply rights
  if (credentials || fields.config || fields.isEnabled !== undefined)
    Object.assign(after, { attentionCode: null, attentionMessage: null, attentionAt: null });
  if (credentials || fields.config) Object.assign(after, { replyAccess: null, replyAccessCheckedAt: null });
  // replacing the config or credentials re-checks the whole connection against what is stored
  const storedCredentials =
    credentials ?? (before.credentialsEncrypted ? await openCredentials(ctx.env, before) : null);
  checkConnection(ctx.env, after.connectorType, after.isSandbox, after.locationId, after.config, storedCredentials);
  await assertLocationRefs(ctx, [patch.locationId]);
  if (credentials) after.credentialsEncrypted = await sealAtRest(ctx.env, JSON.stringify(credentials), "Credentials");
  // another profile (or another account's token): what we knew of its verification no longer holds
  if (patch.config !== undefined || credentials) Object.assign(after, { siteVerified: null, siteVerifiedAt: null });
  const { id: _id, tenantId: _t, createdAt: _c, ...set } = after;
  await commit(ctx, [
    ctx.db
      .update(integrations)
      .set(set)
      .where(and(eq(integrations.id, id), eq(integrations.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "integration.updated",
      resourceType: "integration",
      resourceId: id,
      previousState: auditable(before),
      nextState: auditable(after),
      metadata: { credentialsReplaced: Boolean(credentials) },
    }),
  ]);
  return toIntegration(after);
}

export async function deleteIntegration(ctx: ServiceContext, id: string) {
  const before = await findIntegrationRow(ctx, id);
  await commit(ctx, [
    ctx.db.delete(integrations).where(and(eq(integrations.id, id), eq(integrations.tenantId, ctx.tenantId))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "integration.deleted",
      resourceType: "integration",
      resourceId: id,
      previousState: auditable(before),
    }),
  ]);
}

export async function openCredentials(
  env: Env,
  row: Pick<IntegrationRow, "credentialsEncrypted">,
): Promise<Record<string, string>> {
  if (!row.credentialsEncrypted) return {};
  return JSON.parse(await openAtRest(env, row.credentialsEncrypted, "Credentials")) as Record<string, string>;
}

/** The decrypted connection a review-site client needs; null for connector types that are not review sites. */
export async function siteConnection(env: Env, row: IntegrationRow): Promise<SiteConnection | null> {
  if (!isReviewSite(row.connectorType)) return null;
  return {
    connectorType: row.connectorType,
    isSandbox: row.isSandbox,
    config: row.config,
    credentials: await openCredentials(env, row),
  };
}

/** The decrypted connection a CRM client needs; null for connector types that are not CRMs. */
export async function crmConnection(env: Env, row: IntegrationRow): Promise<CrmConnection | null> {
  if (!isCrm(row.connectorType)) return null;
  return {
    connectorType: row.connectorType,
    isSandbox: row.isSandbox,
    config: row.config,
    credentials: await openCredentials(env, row),
  };
}
