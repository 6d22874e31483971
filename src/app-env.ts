import type { Db } from "./db/client";
import type { Env } from "./env";
import type { Principal, TenantAccess } from "./modules/identity/access";

export interface AppVariables {
  requestId: string;
  db: Db;
  principal: Principal;
  access: TenantAccess;
}

export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
