import type { ControlDb, Db, ShardDb } from "../db/client";
import type { Env } from "../env";

/** Who is acting. REST, MCP, queue consumers and cron all act through one of these. */
export type Actor =
  | { type: "user"; userId: string; via: "platform" | "agency" | "tenant"; oauthClientId?: string }
  | { type: "api_key"; keyId: string }
  | { type: "system"; name: string };

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

export const SYSTEM_META: RequestMeta = { ip: null, userAgent: null, requestId: null };

/**
 * What every service function receives: the verified tenant, the actor and the two databases, each
 * by its own type (docs/SECURITY.md, "Databases by construction"): the tenant's rows on `db`, its
 * shard; control-plane rows (directory, users, keys, white label) on `control`.
 */
export interface ServiceContext {
  /** the tenant's shard */
  db: ShardDb;
  /** the control plane */
  control: ControlDb;
  env: Env;
  tenantId: string;
  actor: Actor;
  meta: RequestMeta;
  /** keeps work alive after the response (waitUntil); in jobs it is the batch's own waitUntil */
  defer: (work: Promise<unknown>) => void;
}

/**
 * Platform and agency surfaces act outside a single tenant. `db` is where the change's audit rows
 * go: the control database on a request, the tenant's shard when the change is one tenant's.
 */
export type PlatformContext = Omit<ServiceContext, "tenantId" | "db"> & { db: Db };

/** The agencies whose tenants a caller of /agency/* (or /admin/*) acts on: every one for platform admins. */
export type AgencyScope = "all" | string[];
