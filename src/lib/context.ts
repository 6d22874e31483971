import type { Db } from "../db/client";
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

/** What every service function receives: the verified tenant, the actor and the database. */
export interface ServiceContext {
  db: Db;
  env: Env;
  tenantId: string;
  actor: Actor;
  meta: RequestMeta;
  /** keeps work alive after the response (waitUntil); in jobs it is the batch's own waitUntil */
  defer: (work: Promise<unknown>) => void;
}

/** Platform and agency surfaces act outside a single tenant. */
export type PlatformContext = Omit<ServiceContext, "tenantId">;
