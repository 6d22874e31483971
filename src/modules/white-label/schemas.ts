import { z } from "@hono/zod-openapi";
import { type customHostnames, WHITE_LABEL_SCOPES, type whiteLabelBrands } from "../../db/schema";
import { canonicalHostname } from "../../lib/host-guard";
import { DateTime } from "../../lib/openapi";
import { Email } from "../../lib/validators";
import { claimExpiresAt, claimStart, ownershipRecord } from "./ownership";
import { isHostnameInUse } from "./resolve";

export const HexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, "A #rrggbb hex colour")
  .transform((v) => v.toLowerCase())
  .openapi({ example: "#0f766e" });

export const HttpsUrl = z
  .url({ protocol: /^https$/ })
  .max(2048)
  .refine((v) => !/["'<>\s]/.test(v), { message: "Must not contain quotes, spaces or angle brackets" })
  .openapi({ example: "https://cdn.example.com/logo.svg" });

/**
 * A brand's logo: the address of one uploaded with POST …/branding/logo (as GET returns it, so a GET-modify-PUT
 * round trip keeps it), or an https URL, still accepted and stored as before but never shown: pages load nothing
 * from another origin (docs/white-label.md "Logos").
 */
const LogoUrl = z
  .union([z.string().regex(/^\/brand-logos\/[a-z0-9]{1,64}\.(png|jpg|webp)$/), HttpsUrl])
  .openapi({ example: "/brand-logos/k3j9x2.png" });

const BrandName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((v) => !/[\r\n]/.test(v), { message: "Must be one line" });

const BrandRow = z.object({
  scope: z.enum(WHITE_LABEL_SCOPES),
  scopeId: z.string().openapi({ description: "the agency id or the tenant id" }),
  name: z.string().nullable(),
  logoUrl: z.string().nullable(),
  primaryColor: z.string().nullable(),
  accentColor: z.string().nullable(),
  supportEmail: z.string().nullable(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export const WhiteLabelBrandSchema = BrandRow.openapi("WhiteLabelBrand");

export const EffectiveBrandSchema = z
  .object({
    name: z.string(),
    logoUrl: z.string().nullable(),
    primaryColor: z.string().nullable(),
    accentColor: z.string().nullable(),
    supportEmail: z.string().nullable(),
    source: z
      .enum(["tenant", "agency", "default"])
      .openapi({ description: "tenant override, the agency's brand, or the platform default" }),
  })
  .openapi("EffectiveBrand");

export const AgencyBrandBody = z
  .object({
    name: BrandName.openapi({
      description: "shown on public pages and as the sender name of account emails",
      example: "Northwind Reviews",
    }),
    logoUrl: LogoUrl.nullable().optional(),
    primaryColor: HexColor.nullable().optional().openapi({ description: "buttons and selected choices" }),
    accentColor: HexColor.nullable().optional().openapi({ description: "the band across the top of public pages" }),
    supportEmail: Email.nullable().optional(),
  })
  .openapi("AgencyBrandRequest");

export const TenantBrandBody = z
  .object({
    name: BrandName.nullable(),
    logoUrl: LogoUrl.nullable(),
    primaryColor: HexColor.nullable(),
    accentColor: HexColor.nullable(),
    supportEmail: Email.nullable(),
  })
  .partial()
  .openapi("TenantBrandRequest", { description: "A field left out or null inherits the agency's value." });

export const TenantBrandingSchema = z
  .object({
    // inline (not the named component): a nullable $ref is emitted as allOf, which rejects null
    override: BrandRow.nullable(),
    agency: BrandRow.nullable(),
    effective: EffectiveBrandSchema,
    publicBaseUrl: z.string().openapi({
      description:
        "the origin of the tenant's links: its active custom hostname, else its agency's, else the platform's",
    }),
  })
  .openapi("TenantBranding", {
    description: "override: this tenant's own values (null: none); agency: its agency's brand (null: none)",
  });

export type AgencyBrandInput = z.infer<typeof AgencyBrandBody>;
export type TenantBrandInput = z.infer<typeof TenantBrandBody>;

export const toWhiteLabelBrand = (r: typeof whiteLabelBrands.$inferSelect) => ({
  scope: r.scope,
  scopeId: r.scopeId,
  name: r.name,
  logoUrl: r.logoUrl,
  primaryColor: r.primaryColor,
  accentColor: r.accentColor,
  supportEmail: r.supportEmail,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

// ---- custom hostnames ----

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** what would make the URL parser read another host out of the value (a scheme, port, path, user info, space) */
const NOT_A_NAME = /[\s/\\?#@:[\]]/;
/**
 * A claimed hostname, stored as the host guard compares it (canonicalHostname, src/lib/host-guard.ts):
 * `Reviews.Example.com.`, `reviews%2Eexample.com` and `reviews.example.com` are one claim, a Unicode name
 * is stored in punycode. Then a DNS name with at least two labels whose last one is not a number (the
 * URL parser reads `0x7f.1` as 127.0.0.1 and refuses `shop.123`): no IP address in any notation.
 */
export const Hostname = z
  .string()
  .trim()
  .transform((v) => (NOT_A_NAME.test(v) ? v : canonicalHostname(v)))
  .refine(
    (v) =>
      v.length <= 253 &&
      v.split(".").length >= 2 &&
      v.split(".").every((l) => LABEL.test(l)) &&
      !/^(\d+|0x[0-9a-f]*)$/.test(v.slice(v.lastIndexOf(".") + 1)),
    {
      message: "A DNS hostname such as reviews.example.com (no scheme, port, path or wildcard)",
    },
  )
  .openapi({ example: "reviews.northwind.com" });

export const CreateHostnameBody = z.object({ hostname: Hostname }).openapi("CreateCustomHostnameRequest");

export const HostnameIdParam = z.object({ id: z.string().min(1).max(64) });
export const AgencyIdParam = z.object({ agencyId: z.string().min(1).max(64) });
export const AgencyHostnameParams = AgencyIdParam.extend({ id: z.string().min(1).max(64) });

export const CustomHostnameSchema = z
  .object({
    id: z.string(),
    scope: z.enum(WHITE_LABEL_SCOPES),
    scopeId: z.string(),
    hostname: z.string(),
    status: z.string().openapi({ description: "Cloudflare's hostname status: pending, active, moved, blocked, ..." }),
    sslStatus: z
      .string()
      .nullable()
      .openapi({ description: "the certificate's status: initializing, pending_validation, ..., active" }),
    active: z.boolean().openapi({
      description: "status and sslStatus both active and ownership verified: links and pages use this host",
    }),
    verified: z.boolean().openapi({
      description: "the ownership TXT record (dns.verification) was found; an unverified hostname is never used",
    }),
    verifiedAt: DateTime.nullable(),
    claimExpiresAt: DateTime.nullable().openapi({
      description:
        "an unverified claim is removed at this time: 7 days after this owner first claimed the name (deleting and claiming again does not extend it); null once verified",
    }),
    dns: z
      .object({
        cname: z.object({ name: z.string(), target: z.string().nullable() }),
        verification: z.object({ type: z.literal("TXT"), name: z.string(), value: z.string() }).openapi({
          description:
            "the platform's proof of ownership: create this TXT record, then refresh (or wait for the 5-minute check)",
        }),
        ownership: z.object({ type: z.string(), name: z.string(), value: z.string() }).nullable(),
        ssl: z.array(
          z.object({
            txtName: z.string().nullable(),
            txtValue: z.string().nullable(),
            httpUrl: z.string().nullable(),
            httpBody: z.string().nullable(),
          }),
        ),
      })
      .openapi({
        description:
          "the records to create at the customer's DNS: the CNAME, the platform's verification TXT record, Cloudflare's ownership TXT record, and certificate validation records while pending",
      }),
    errors: z.array(z.string()),
    activatedAt: DateTime.nullable(),
    lastCheckedAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .openapi("CustomHostname");

export const CustomHostnameListSchema = z.object({ data: z.array(CustomHostnameSchema) }).openapi("CustomHostnameList");

type HostnameRow = typeof customHostnames.$inferSelect;

export function toCustomHostname(r: HostnameRow, cnameTarget: string | null) {
  const v = r.verification as {
    ownership?: { type: string; name: string; value: string } | null;
    ssl?: never[];
    errors?: string[];
  };
  return {
    id: r.id,
    scope: r.scope,
    scopeId: r.scopeId,
    hostname: r.hostname,
    status: r.status,
    sslStatus: r.sslStatus,
    active: isHostnameInUse(r),
    verified: r.verifiedAt !== null,
    verifiedAt: r.verifiedAt,
    claimExpiresAt: r.verifiedAt ? null : claimExpiresAt(claimStart(r)),
    dns: {
      cname: { name: r.hostname, target: cnameTarget },
      verification: ownershipRecord(r),
      ownership: v.ownership ?? null,
      ssl: v.ssl ?? [],
    },
    errors: v.errors ?? [],
    activatedAt: r.activatedAt,
    lastCheckedAt: r.lastCheckedAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
