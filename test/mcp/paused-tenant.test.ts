import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/db/schema";
import { roleAtLeast } from "../../src/modules/identity/access";
import { ALL_SCOPES } from "../../src/modules/oauth/scopes";
import { SKILLS } from "../../src/wiring";
import { request } from "../helpers/http";
import { createWorld, db, type World } from "../helpers/seed";
import { authorizeWithConsent, MemoryOAuthClient } from "../oauth/helpers";
import { statelessCall, statelessConfirmed, statelessRequest } from "./helpers";

// Issue #44 item 3: a paused tenant is read-only for everyone of it (its users and its API keys;
// platform and agency scope keep administering it), through every door. Over MCP an API key's calls
// skipped the tenant check, so contact.suppress and contact.import-csv ran on a paused tenant while
// REST answered 403. The check is now one function (identity/access.ts `requireTenantRole`) that
// REST's role middleware and every MCP tool call pass.

let w: World;
let contactId = "";
const creds: Record<"API key" | "OAuth" | "session JWT", string> = { "API key": "", OAuth: "", "session JWT": "" };

beforeAll(async () => {
  w = await createWorld();
  creds["API key"] = (await w.as("tenantAdmin").post("/v1/api-keys", { name: "paused", scopes: ALL_SCOPES })).body.key;
  creds.OAuth = await authorizeWithConsent(new MemoryOAuthClient("Paused app"), ALL_SCOPES.join(" "), {
    email: w.users.tenantAdmin.email,
    tenantId: w.tenantA.id,
  });
  creds["session JWT"] = w.users.tenantAdmin.token;
  contactId = (await w.as("manager").post("/v1/contacts", { email: "paused@example.com" })).body.id;
  const paused = await w
    .as("agencyAdmin")
    .patch(`/agency/tenants/${w.tenantA.id}`, { isActive: false, pausedReason: "Unpaid invoice" });
  expect(paused.status).toBe(200);
}, 60_000);

const suppressed = async () => (await db().select().from(contacts).where(eq(contacts.id, contactId)).get())!;
const imported = async (email: string) =>
  db()
    .select()
    .from(contacts)
    .where(and(eq(contacts.tenantId, w.tenantA.id), eq(contacts.email, email)))
    .get();
const errorText = (result: any) => (result?.isError ? String(JSON.parse(result.content[0].text).error) : "");

describe("a paused tenant over MCP, as over REST", () => {
  it("REST: the tenant admin's key cannot suppress a contact (403)", async () => {
    const res = await request("POST", `/v1/contacts/${contactId}/suppress`, {
      token: creds["API key"],
      tenantId: w.tenantA.id,
      body: { reason: "x" },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toContain("paused");
  });

  for (const who of ["API key", "OAuth"] as const) {
    it(`${who}: contact.suppress and contact.import-csv are refused and change nothing, even confirmed`, async () => {
      const suppress = await statelessConfirmed(creds[who], "contact.suppress", { contactId, reason: "asked" });
      expect(suppress.result.isError).toBe(true);
      expect(errorText(suppress.result)).toContain("paused");
      expect(await suppressed()).toMatchObject({ isSuppressed: false });
      const email = `imported-${who.replace(" ", "-").toLowerCase()}@example.com`;
      const csv = await statelessConfirmed(creds[who], "contact.import-csv", { csv: `email\n${email}\n` });
      expect(csv.result.isError).toBe(true);
      expect(errorText(csv.result)).toContain("paused");
      expect(await imported(email)).toBeUndefined();
    });
  }

  it("agent.template-generator saves nothing on a paused tenant (its write needs tenant_user, checked the same way)", async () => {
    const run = await statelessConfirmed(creds.OAuth, "agent.template-generator", { create: true });
    expect(run.result.isError).toBe(true);
    expect(errorText(run.result)).toMatch(/tenant_user/);
  });
});

// The declared role of a tool (or, for a write without one, the exception below) decides; the list of
// tools is the composition root's, so a new tool is covered without editing this file.
const WRITES_WITHOUT_ROLE: Record<string, string> = {
  "agent.template-generator":
    "reads unless create: true; saving needs tenant_user, checked on the access the tool door resolved (above)",
};

describe("every MCP tool on a paused tenant, with a key, an OAuth grant and a session JWT of its tenant admin", () => {
  it("every write tool declares the role it needs, or is listed with its reason", () => {
    const unlisted = SKILLS.filter((s) => s.access === "write" && !s.minRole).map((s) => s.name);
    expect(unlisted.sort()).toEqual(Object.keys(WRITES_WITHOUT_ROLE).sort());
  });

  for (const who of ["API key", "OAuth", "session JWT"] as const) {
    it(`${who}: every tool needing more than viewer is refused because the tenant is paused; reads are served`, async () => {
      const listed = await statelessRequest(creds[who], "/mcp", "tools/list", {});
      const names = new Set(
        ((await listed.json()) as any).result.tools.map((t: { name: string }) => t.name) as string[],
      );
      const refused: string[] = [];
      for (const skill of SKILLS) {
        const needsMore = Boolean(skill.minRole && !roleAtLeast("viewer", skill.minRole));
        const res = await statelessCall(creds[who], skill.name, {});
        const text = errorText(res.result);
        const where = `${who} ${skill.name}: ${res.status} ${text}`;
        if (needsMore) {
          // refused before its input is even read: by the pause, or (a session JWT's scopes follow the paused role)
          // because it is not offered at all
          expect(res.result?.isError ?? res.status === 403, where).toBe(true);
          if (names.has(skill.name)) expect(text, where).toContain("paused");
          else expect(text, where).toMatch(/needs|Unknown tool/);
          refused.push(skill.name);
        } else {
          expect(text, where).not.toContain("paused");
          // reads the caller is offered and that need no input answer their data
          if (["contact.list", "location.list", "review.list"].includes(skill.name) && names.has(skill.name))
            expect(res.result.isError, where).toBeFalsy();
        }
      }
      // the floor: the writes the issue names are among them
      expect(refused).toEqual(expect.arrayContaining(["contact.suppress", "contact.import-csv"]));
    }, 120_000);
  }
});
