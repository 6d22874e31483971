import { and, count, desc, eq, lt, or, type SQL } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { contacts } from "../../src/db/schema";
import { dueContacts } from "../../src/modules/contacts/retention";
import { searchCondition } from "../../src/modules/contacts/service";
import { queryPlan } from "../helpers/query-plan";
import { db } from "../helpers/seed";

const plan = queryPlan;

const page = (where: SQL | undefined) =>
  db().select().from(contacts).where(where).orderBy(desc(contacts.createdAt), desc(contacts.id)).limit(51);

describe("contact queries are index-backed", () => {
  it("lists newest first straight off (tenant_id, created_at, id)", async () => {
    const steps = await plan(page(eq(contacts.tenantId, "t1")));
    expect(steps.join("\n")).toMatch(/SEARCH contacts USING INDEX contacts_tenant_created_idx \(tenant_id=\?\)/);
    expect(steps.join("\n")).not.toMatch(/TEMP B-TREE/);
  });

  it("searches with one index range per column, never a table scan", async () => {
    const steps = (await plan(page(searchCondition("t1", "+1 415 ann")))).join("\n");
    const alt = (await plan(page(searchCondition("t1", "4155")))).join("\n");
    for (const s of [steps, alt]) {
      expect(s).toMatch(/MULTI-INDEX OR/);
      expect(s).toMatch(/contacts_tenant_email_uq \(tenant_id=\? AND email>\? AND email<\?\)/);
      expect(s).toMatch(/contacts_tenant_name_idx \(tenant_id=\? AND name_key>\? AND name_key<\?\)/);
      expect(s).toMatch(/contacts_tenant_name_rev_idx/);
      expect(s).not.toMatch(/SCAN contacts/);
    }
    expect(alt).toMatch(/contacts_tenant_phone_uq \(tenant_id=\? AND phone>\? AND phone<\?\)/);
  });

  it("keeps the index ranges for a later page and for the search total", async () => {
    const cursor = or(
      lt(contacts.createdAt, "2026-01-01"),
      and(eq(contacts.createdAt, "2026-01-01"), lt(contacts.id, "x")),
    );
    const later = (await plan(page(and(searchCondition("t1", "ann"), cursor)))).join("\n");
    const total = (await plan(db().select({ n: count() }).from(contacts).where(searchCondition("t1", "ann")))).join(
      "\n",
    );
    for (const s of [later, total]) {
      expect(s).toMatch(/MULTI-INDEX OR/);
      expect(s).not.toMatch(/SCAN contacts/);
    }
  });

  it("finds contacts due for retention with a seek per tenant", async () => {
    const steps = (await plan(dueContacts(db(), new Date().toISOString()))).join("\n");
    expect(steps).toMatch(
      /SEARCH contacts USING (COVERING )?INDEX contacts_tenant_activity_idx \(tenant_id=\? AND last_activity_at<\?\)/,
    );
  });
});
