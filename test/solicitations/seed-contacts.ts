import { consentRecords, contacts } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { db } from "../helpers/seed";

export interface SeedSpec {
  tenantId: string;
  count: number;
  /** which of them (by index) are suppressed / have email consent granted */
  suppressed?: (i: number) => boolean;
  consented?: (i: number) => boolean;
  prefix?: string;
}

/** Many contacts (and their email consent) straight into D1, in statements of at most 100 bound values. */
export async function seedContacts(
  s: SeedSpec,
): Promise<{ id: string; email: string; suppressed: boolean; consented: boolean }[]> {
  const now = Date.now();
  const rows = Array.from({ length: s.count }, (_, i) => {
    const at = new Date(now - i * 1000).toISOString();
    return {
      id: newId(),
      tenantId: s.tenantId,
      email: `${s.prefix ?? "bulk"}${i}-${newId().slice(0, 6)}@example.com`,
      firstName: `F${i}`,
      lastName: "Seed",
      isSuppressed: s.suppressed?.(i) ?? false,
      suppressedAt: s.suppressed?.(i) ? at : null,
      suppressionReason: s.suppressed?.(i) ? "test" : null,
      lastActivityAt: at,
      createdAt: at,
      updatedAt: at,
    };
  });
  const d = db();
  const statements = [];
  for (let i = 0; i < rows.length; i += 5) statements.push(d.insert(contacts).values(rows.slice(i, i + 5)));
  const granted = rows.filter((_, i) => s.consented?.(i) ?? true);
  for (let i = 0; i < granted.length; i += 10) {
    statements.push(
      d.insert(consentRecords).values(
        granted.slice(i, i + 10).map((c) => ({
          id: newId(),
          tenantId: s.tenantId,
          contactId: c.id,
          channel: "email" as const,
          status: "granted" as const,
          seq: 1,
          source: "seed",
          createdAt: c.createdAt,
        })),
      ),
    );
  }
  for (let i = 0; i < statements.length; i += 200)
    await d.batch(statements.slice(i, i + 200) as [(typeof statements)[0]]);
  return rows.map((r, i) => ({
    id: r.id,
    email: r.email,
    suppressed: r.isSuppressed,
    consented: s.consented?.(i) ?? true,
  }));
}
