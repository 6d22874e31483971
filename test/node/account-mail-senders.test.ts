import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain .mjs script without types
import { importGraph } from "../../scripts/import-graph.mjs";

// Account mail (invites, access grants, resets: docs/SECURITY.md "Account mail") goes through
// src/providers/messaging/account-mail.ts, the platform's sender. A tenant's transport is reached only
// through transactional.ts / resolve.ts; this enumerates every module that may send through it, so a
// new flow cannot start mailing credentials through a tenant's transport without changing this list
// (and being asked why). test/providers/messaging/account-mail.test.ts checks each account-mail kind end to end.
const root = path.resolve(import.meta.dirname, "../..");
const rel = (f: string) => path.relative(root, f).split(path.sep).join("/");

/** Tenant notification mail and messages: the tenant's own channel is the right transport. */
const TENANT_TRANSPORT_USERS = [
  "src/modules/alerts/digest-sweep.ts",
  "src/modules/alerts/instant.ts",
  "src/modules/automation/actions.ts",
  "src/modules/feedback/alert.ts",
  // a tenant's test message goes through the channel it tests (fixed content, no credential, manager+)
  "src/modules/messaging-settings/test-send.tsx",
  "src/modules/reviews/escalation.ts",
  "src/modules/solicitations/delivery.ts",
  "src/providers/messaging/transactional.ts",
];
const TENANT_TRANSPORT = ["src/providers/messaging/transactional.ts", "src/providers/messaging/resolve.ts"];

describe("who sends mail through a tenant's transport", () => {
  const graph: Map<string, Set<string>> = importGraph();
  const importersOf = (targets: string[]) =>
    [...graph]
      .filter(([, deps]) => [...deps].some((d) => targets.includes(rel(d))))
      .map(([f]) => rel(f))
      .sort();

  it("only tenant notification senders import the tenant transport", () => {
    expect(importersOf(TENANT_TRANSPORT)).toEqual(TENANT_TRANSPORT_USERS);
  });

  it("the account-mail templates send through the platform sender, which never reads a tenant's messaging settings", () => {
    expect(importersOf(["src/providers/messaging/account-mail.ts"])).toEqual(["src/modules/users/tokens.ts"]);
    const accountMailDeps = [...graph.get(path.join(root, "src/providers/messaging/account-mail.ts"))!].map(rel);
    expect(accountMailDeps).not.toContain("src/providers/messaging/resolve.ts");
    expect(accountMailDeps).not.toContain("src/providers/messaging/settings-store.ts");
  });
});
