import { and, eq } from "drizzle-orm";
import { type DomainCheck, type DomainStatus, type MessagingSettingsRow, messagingSettings } from "../../db/schema";
import { auditStatement } from "../../lib/audit";
import { commit } from "../../lib/commit";
import type { ServiceContext } from "../../lib/context";
import { validationError } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { DEFAULT_DOH_URL, lookupTxt, type TxtLookup } from "../../providers/dns";
import type { FetchLike } from "../../providers/messaging/types";
import { toEmailSettings } from "./schemas";
import { findSettings } from "./service";

/** The DKIM selectors each provider publishes; SES uses its Easy DKIM tokens. */
const PROVIDER_SELECTORS: Record<string, string[]> = {
  sendgrid: ["s1", "s2"],
  acs: ["selector1-azurecomm-prod-net", "selector2-azurecomm-prod-net"],
};
/** Tried for SMTP (and SES without tokens): the selectors mail hosts use most. */
const COMMON_SELECTORS = ["default", "selector1", "selector2", "google", "k1", "dkim", "mail"];

export function dkimSelectors(row: MessagingSettingsRow): string[] {
  const o = row.options as { dkimSelectors?: string[]; dkimTokens?: string[] };
  if (o.dkimSelectors?.length) return o.dkimSelectors;
  if (row.provider === "ses" && o.dkimTokens?.length) return o.dkimTokens;
  return PROVIDER_SELECTORS[row.provider] ?? COMMON_SELECTORS;
}

/** A DKIM key record with a non-empty public key (an empty p= means the key was revoked). */
const isDkimKey = (r: string) =>
  /(^|;)\s*p=\s*[A-Za-z0-9+/]/.test(r) && (!/(^|;)\s*v=/.test(r) || /(^|;)\s*v=\s*DKIM1\s*(;|$)/i.test(r));
const isDmarc = (r: string) => /^\s*v\s*=\s*DMARC1\s*(;|$)/i.test(r);

const statusOf = (found: boolean, lookup: TxtLookup): DomainStatus =>
  found ? "verified" : lookup.outcome === "error" ? "pending" : "failed";

export async function checkDomain(
  domain: string,
  selectors: string[],
  o: { fetch: FetchLike; dohUrl: string },
): Promise<DomainCheck> {
  const dkimNames = selectors.map((s) => ({ selector: s, name: `${s}._domainkey.${domain}` }));
  const dmarcName = `_dmarc.${domain}`;
  const [dmarcLookup, ...dkimLookups] = await Promise.all([
    lookupTxt(dmarcName, o),
    ...dkimNames.map((d) => lookupTxt(d.name, o)),
  ]);
  const dkim = dkimNames.map((d, i) => {
    const lookup = dkimLookups[i]!;
    const record = lookup.outcome === "records" ? (lookup.records.find(isDkimKey) ?? null) : null;
    return { ...d, status: statusOf(record !== null, lookup), record };
  });
  const dmarcRecords = dmarcLookup.outcome === "records" ? dmarcLookup.records.filter(isDmarc) : [];
  // RFC 7489: more than one DMARC record means none applies
  const dmarcRecord = dmarcRecords.length === 1 ? dmarcRecords[0]! : null;
  const errors = [dmarcLookup, ...dkimLookups].flatMap((l) => (l.outcome === "error" ? [l.error] : []));
  return {
    checkedAt: nowIso(),
    dkim,
    dmarc: {
      name: dmarcName,
      status: statusOf(dmarcRecord !== null, dmarcLookup),
      record: dmarcRecords.length ? dmarcRecords.join("\n") : null,
    },
    ...(errors.length ? { error: errors.join("; ") } : {}),
  };
}

/** DKIM is verified when any selector has a key, failed when every lookup answered without one, else pending. */
const overallDkim = (c: DomainCheck): DomainStatus =>
  c.dkim.some((d) => d.status === "verified")
    ? "verified"
    : c.dkim.some((d) => d.status === "pending")
      ? "pending"
      : "failed";

export async function verifyEmailDomain(
  ctx: ServiceContext,
  input: { selectors?: string[] } = {},
  fetchImpl: FetchLike = (input, init) => fetch(input, init),
) {
  const before = await findSettings(ctx, "email");
  const domain = before.config.senderDomain;
  if (!domain)
    throw validationError([{ path: "senderDomain", message: "Set a senderDomain in the email settings first" }]);
  const check = await checkDomain(domain, input.selectors ?? dkimSelectors(before), {
    fetch: fetchImpl,
    dohUrl: ctx.env.DOH_URL ?? DEFAULT_DOH_URL,
  });
  const after: MessagingSettingsRow = {
    ...before,
    dkimStatus: overallDkim(check),
    dmarcStatus: check.dmarc.status,
    domainCheck: check,
    updatedAt: nowIso(),
  };
  await commit(ctx, [
    ctx.db
      .update(messagingSettings)
      .set({
        dkimStatus: after.dkimStatus,
        dmarcStatus: after.dmarcStatus,
        domainCheck: check,
        updatedAt: after.updatedAt,
      })
      .where(and(eq(messagingSettings.tenantId, ctx.tenantId), eq(messagingSettings.channel, "email"))),
    auditStatement(ctx, {
      tenantId: ctx.tenantId,
      action: "settings.email.domain_checked",
      resourceType: "messaging_settings",
      resourceId: `${ctx.tenantId}:email`,
      previousState: { dkimStatus: before.dkimStatus, dmarcStatus: before.dmarcStatus },
      nextState: { dkimStatus: after.dkimStatus, dmarcStatus: after.dmarcStatus, domainCheck: check },
    }),
  ]);
  return toEmailSettings(after);
}
