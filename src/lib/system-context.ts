import { controlDb, tenantDb } from "../db/shards";
import type { Env } from "../env";
import { type ServiceContext, SYSTEM_META } from "./context";

/** A tenant-scoped context on the tenant's shard for queue consumers and sweeps; deferred work is awaited by `settle`. */
export async function systemContext(
  env: Env,
  tenantId: string,
  job: string,
  pending: Promise<unknown>[] = [],
): Promise<ServiceContext & { settle: () => Promise<void> }> {
  return {
    db: await tenantDb(env, tenantId),
    control: controlDb(env),
    env,
    tenantId,
    actor: { type: "system", name: job },
    meta: SYSTEM_META,
    defer: (work) => void pending.push(work),
    settle: async () => {
      await Promise.allSettled(pending);
    },
  };
}
