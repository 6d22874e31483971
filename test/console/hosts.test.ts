// The console on hosts (#45 item 2, docs/console.md "Hosts"): on an agency's custom hostname, in any spelling
// the guard normalises, the console wears that brand and only people with a role there sign in; the platform
// admin signs in on the platform's host; REST /auth/login stays host-neutral.
import { beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/http";
import { createWorld, TEST_PASSWORD, type World } from "../helpers/seed";
import { activeHostname } from "../white-label/helpers";
import { ConsoleBrowser, textOf } from "./helpers";

let w: World;
const HOST = "console.agency-a.test";
const BRAND = "Harbour Reviews";

beforeAll(async () => {
  w = await createWorld();
  await w.as("agencyAdmin").put(`/agency/agencies/${w.agencyA.id}/branding`, { name: BRAND });
  await activeHostname("agency", w.agencyA.id, w.agencyA.id, HOST);
});

describe("the console on an agency's custom hostname", () => {
  for (const spelling of [HOST, "Console.Agency-A.test.", `${HOST}:8443`]) {
    it(`wears the agency's brand (Host: ${spelling})`, async () => {
      const page = await new ConsoleBrowser(spelling).get("/");
      expect(page.status).toBe(200);
      expect(textOf(page.text)).toContain(BRAND);
    });
  }

  it("signs in people with a role there, on the home naming the tenant", async () => {
    for (const who of ["manager", "agencyAdmin"] as const) {
      const b = new ConsoleBrowser(HOST);
      const res = await b.signIn(w.users[who].email);
      expect(res.status, who).toBe(303);
      const home = await b.follow(res);
      expect(home.status, who).toBe(200);
      expect(textOf(home.text)).toContain(w.tenantA.name);
    }
  });

  it("refuses people without a role there: another agency's admin, another tenant's admin, the platform admin", async () => {
    for (const who of ["otherAgencyAdmin", "tenantBAdmin", "platformAdmin"] as const) {
      const b = new ConsoleBrowser(HOST);
      const res = await b.signIn(w.users[who].email);
      expect(res.status, who).toBe(403);
      expect(textOf(res.text)).toContain(`no access to ${BRAND}`);
      expect(b.cookies.has("session"), who).toBe(false);
    }
  });

  it("the platform admin signs in on the platform's host", async () => {
    const res = await new ConsoleBrowser().signIn(w.users.platformAdmin.email);
    expect(res.status).toBe(303);
  });

  it("REST /auth/login stays host-neutral for API clients", async () => {
    const res = await request("POST", "/auth/login", {
      body: { email: w.users.tenantBAdmin.email, password: TEST_PASSWORD },
      headers: { host: HOST },
    });
    expect(res.status).toBe(200);
  });
});
