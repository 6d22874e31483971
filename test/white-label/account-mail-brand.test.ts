// Account mail wears a tenant's brand only when every role the person holds lies in that tenant, an
// agency's when every role lies within that agency's tenants, and otherwise only the platform's; the
// same rule picks the host its links point at (issue #44, item 7). A tenant's white label in the reset
// mail of the platform admin homed there would be a phishing channel run by that tenant's admin.
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Role, ScopeType } from "../../src/db/schema";
import { type AccountMailScope, accountMailScope } from "../../src/modules/white-label/account-mail-look";
import { emailIdsTo, nextEmailTo } from "../helpers/dev-mailbox";
import { request } from "../helpers/http";
import { createWorld, seedTenant, seedUser, TEST_PASSWORD, type World } from "../helpers/seed";
import { activeHostname } from "./helpers";

const TENANT_HOST = "reviews.tenant-a.test";
const AGENCY_HOST = "reviews.northwind.test";
const TENANT_BRAND = { name: "Bright Smiles Dental", supportEmail: "help@bright-smiles.test" };
const AGENCY_BRAND = { name: "Northwind Reviews", supportEmail: "support@northwind.test" };
const worker = (exports as unknown as { default: Fetcher }).default;
const PLATFORM = env.PUBLIC_BASE_URL.replace(/\/+$/, "");

let w: World;
let tenantA2: Awaited<ReturnType<typeof seedTenant>>;

beforeAll(async () => {
  w = await createWorld();
  tenantA2 = await seedTenant({ agencyId: w.agencyA.id });
  expect((await w.as("tenantAdmin").put("/v1/branding", TENANT_BRAND)).status).toBe(200);
  expect((await w.as("agencyAdmin").put(`/agency/agencies/${w.agencyA.id}/branding`, AGENCY_BRAND)).status).toBe(200);
  await activeHostname("tenant", w.tenantA.id, w.agencyA.id, TENANT_HOST);
  await activeHostname("agency", w.agencyA.id, w.agencyA.id, AGENCY_HOST);
});

type G = { role: Role; scopeType: ScopeType; scopeId?: string };
const t =
  (role: Role, tenantId: () => string): (() => G) =>
  () => ({ role, scopeType: "tenant", scopeId: tenantId() });

/** Every kind of person, homed in tenant A (its admin administers A's white label), and what their mail wears. */
const PEOPLE: Record<string, { grants: (() => G)[]; brand: "tenant" | "agency" | "platform" }> = {
  "plain user of A": { grants: [t("tenant_user", () => w.tenantA.id)], brand: "tenant" },
  "platform admin homed in A (bootstrap's shape)": {
    grants: [() => ({ role: "platform_admin", scopeType: "platform" }), t("tenant_admin", () => w.tenantA.id)],
    brand: "platform",
  },
  "admin of A's agency with a role in A": {
    grants: [
      () => ({ role: "agency_admin", scopeType: "agency", scopeId: w.agencyA.id }),
      t("manager", () => w.tenantA.id),
    ],
    brand: "agency",
  },
  "roles in two tenants of A's agency": {
    grants: [t("tenant_user", () => w.tenantA.id), t("viewer", () => tenantA2.id)],
    brand: "agency",
  },
  "roles in A and in another agency's tenant": {
    grants: [t("tenant_user", () => w.tenantA.id), t("tenant_admin", () => w.tenantB.id)],
    brand: "platform",
  },
  "admin of A's agency and of another agency": {
    grants: [
      () => ({ role: "agency_admin", scopeType: "agency", scopeId: w.agencyA.id }),
      () => ({ role: "agency_admin", scopeType: "agency", scopeId: w.agencyB.id }),
    ],
    brand: "platform",
  },
  "no role at all": { grants: [], brand: "platform" },
};

const expected: Record<"tenant" | "agency" | "platform", { names: string[]; origin: string }> = {
  tenant: { names: [TENANT_BRAND.name, TENANT_BRAND.supportEmail], origin: `https://${TENANT_HOST}` },
  agency: { names: [AGENCY_BRAND.name, AGENCY_BRAND.supportEmail], origin: `https://${AGENCY_HOST}` },
  platform: { names: [], origin: PLATFORM },
};
const ALL_NAMES = [TENANT_BRAND.name, TENANT_BRAND.supportEmail, AGENCY_BRAND.name, AGENCY_BRAND.supportEmail];

describe("the reset mail of every kind of person", () => {
  for (const [kind, person] of Object.entries(PEOPLE)) {
    it(`${kind}: the ${person.brand}'s brand and host`, async () => {
      const p = await seedUser({ grants: person.grants.map((g) => g()), tenantId: w.tenantA.id });
      const seen = await emailIdsTo(p.email);
      await request("POST", "/auth/forgot-password", { body: { email: p.email } });
      const mail = await nextEmailTo(p.email, seen);
      const want = expected[person.brand];
      for (const name of ALL_NAMES)
        expect(mail.text!.includes(name), `${name} in: ${mail.text}`).toBe(want.names.includes(name));
      const link = /(\S+)\/reset-password\?token=/.exec(mail.text!)?.[1];
      expect(link).toBe(want.origin);
    });
  }
});

describe("the links open a working page on the host they name", () => {
  it("the password-changed mail of a user of A links A's host, where the console's connected-apps page answers", async () => {
    const p = await seedUser({ grants: [PEOPLE["plain user of A"]!.grants[0]!()], tenantId: w.tenantA.id });
    const seen = await emailIdsTo(p.email);
    const changed = await request("POST", "/me/password", {
      token: p.token,
      body: { currentPassword: TEST_PASSWORD, newPassword: "a changed password" },
    });
    expect(changed.status).toBe(200);
    const mail = await nextEmailTo(p.email, seen, 4_000, "Your password was changed");
    const url = /(https:\/\/\S+\/app\/connected-apps)/.exec(mail.text!)?.[1];
    expect(url).toBe(`https://${TENANT_HOST}/app/connected-apps`);
    // the console's page: signed out, its sign-in page on the same host, in the tenant's brand
    const page = await worker.fetch(new Request(url!, { redirect: "manual" }));
    expect(page.status).toBe(303);
    const signIn = await worker.fetch(new Request(new URL(page.headers.get("location")!, url), { redirect: "manual" }));
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toContain(TENANT_BRAND.name);
  });
});

describe("accountMailScope, the rule itself", () => {
  const agencyOf = new Map([
    ["t1", "g1"],
    ["t2", "g1"],
    ["t3", "g2"],
  ]);
  const tenant = (id: string) => ({ scopeType: "tenant" as const, scopeId: id });
  const agency = (id: string) => ({ scopeType: "agency" as const, scopeId: id });
  const platform = { scopeType: "platform" as const, scopeId: "" };
  const cases: [string, { scopeType: ScopeType; scopeId: string }[], AccountMailScope][] = [
    ["one tenant, several roles", [tenant("t1"), tenant("t1")], { scope: "tenant", tenantId: "t1" }],
    ["two tenants of one agency", [tenant("t1"), tenant("t2")], { scope: "agency", agencyId: "g1" }],
    ["agency admin only", [agency("g1")], { scope: "agency", agencyId: "g1" }],
    [
      "agency admin with a role in one of its tenants",
      [agency("g1"), tenant("t1")],
      { scope: "agency", agencyId: "g1" },
    ],
    ["agency admin with a role in another agency's tenant", [agency("g1"), tenant("t3")], { scope: "platform" }],
    ["tenants of two agencies", [tenant("t1"), tenant("t3")], { scope: "platform" }],
    ["admin of two agencies", [agency("g1"), agency("g2")], { scope: "platform" }],
    ["platform admin homed in a tenant", [platform, tenant("t1")], { scope: "platform" }],
    ["a tenant of no known agency", [tenant("t1"), tenant("gone")], { scope: "platform" }],
    ["no role", [], { scope: "platform" }],
  ];
  for (const [name, grants, want] of cases) it(name, () => expect(accountMailScope(grants, agencyOf)).toEqual(want));
});
