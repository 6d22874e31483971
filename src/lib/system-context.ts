import { createDb } from "../db/client";
import type { Env } from "../env";
import { SYSTEM_META, type ServiceContext } from "./context";

/** A tenant-scoped context for queue consumers and sweeps; deferred work is awaited by `settle`. */
export function systemContext(env: Env, tenantId: string, job: string, pending: Promise<unknown>[] = []): ServiceContext & { settle: () => Promise<void> } {
  return {
    db: createDb(env.DB),
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
