import type { Env } from "../../env";
import { randomBytes } from "../../lib/crypto";
import { dnsTxt } from "../../providers/dns";

/**
 * Proof that whoever claims a hostname controls its DNS (docs/white-label.md "Ownership"). Cloudflare
 * activates a custom hostname as soon as its CNAME points at the zone, so a hostname whose owner
 * deleted it here but left the CNAME would be handed to the next claimant. Our own TXT record, with
 * a fresh random token per claim, cannot be left over: a claim made after a delete needs a new one.
 */
export const OWNERSHIP_RECORD_LABEL = "_reputation-ops-challenge";
/**
 * An unverified claim is removed this long after the owner first claimed the name (deleting and claiming
 * again does not restart it). It blocks nobody meanwhile: the first claimant to prove ownership wins.
 */
export const CLAIM_TTL_MS = 7 * 24 * 3600_000;

export const newOwnershipToken = () =>
  `rops-verify=${[...randomBytes(16)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;

export const ownershipRecord = (r: { hostname: string; ownershipToken: string | null }) => ({
  type: "TXT" as const,
  name: `${OWNERSHIP_RECORD_LABEL}.${r.hostname}`,
  value: r.ownershipToken ?? "",
});

/** At most this many unverified claims per agency or tenant: each holds a Cloudflare record for up to 7 days. */
export const MAX_UNVERIFIED_PER_OWNER = 3;

type ClaimTimes = { verifiedAt: string | null; claimedAt: string | null; createdAt: string };
/** When the owner first claimed the name (rows older than claimed_at: their creation). */
export const claimStart = (r: Omit<ClaimTimes, "verifiedAt">) => r.claimedAt ?? r.createdAt;
export const claimExpiresAt = (claimedAt: string) => new Date(Date.parse(claimedAt) + CLAIM_TTL_MS).toISOString();
/** An unverified claim past its 7 days: it holds nothing and the sweep removes it. */
export const claimExpired = (r: ClaimTimes, now: Date) =>
  r.verifiedAt === null && Date.parse(claimStart(r)) + CLAIM_TTL_MS <= now.getTime();

/** Why a claim cannot be verified once another owner's claim of the name was. */
export const PROVEN_BY_ANOTHER = "another owner proved ownership of this hostname first";

export type OwnershipCheck = { verified: true } | { verified: false; reason: string };

/** Looks the TXT record up (DNS over HTTPS); a lookup failure is "not yet", never "verified". */
export async function checkOwnership(
  env: Env,
  r: { hostname: string; ownershipToken: string | null },
): Promise<OwnershipCheck> {
  const record = ownershipRecord(r);
  if (!r.ownershipToken) return { verified: false, reason: "no ownership token" };
  const found = await dnsTxt(env)(record.name);
  if (found.outcome === "records" && found.records.some((v) => v.trim() === record.value)) return { verified: true };
  if (found.outcome === "error") return { verified: false, reason: found.error };
  return { verified: false, reason: `TXT record ${record.name} with value ${record.value} not found` };
}
