import type { ControlDb, ShardDb } from "./db/client";
import type { Env } from "./env";
import type { HostGuard } from "./lib/host-guard";
import type { ConsoleSession } from "./modules/console/session-types";
import type { Principal, TenantAccess, TenantRef } from "./modules/identity/access";
import type { HostOwner } from "./modules/white-label/resolve";

export interface AppVariables {
  requestId: string;
  /** the control plane, on every route (through the request's D1 session where one is open) */
  control: ControlDb;
  /** the tenant's shard: set by tenantContext (/v1) only */
  db: ShardDb;
  principal: Principal;
  access: TenantAccess;
  /** the x-tenant-id tenant, when the authenticator already read it (null: no such tenant) */
  prefetchedTenant?: TenantRef | null;
  /** the custom hostname the request arrived on, when it is an active one (docs/white-label.md) */
  customHost?: HostOwner | null;
  /** hand it the tenant owning the public resource about to be served: 404 on a custom host that does not serve it (middleware/public-host.ts) */
  hostGuard: HostGuard;
  /** the custom-host guard for an agency's own resource (middleware/public-host.ts) */
  agencyHostGuard: HostGuard;
  /** the console's signed-in person (console pages only: src/modules/console/guards.ts) */
  consoleSession?: ConsoleSession;
  /** the nonce of the page's Content-Security-Policy (hono/secure-headers, console pages) */
  secureHeadersNonce?: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
