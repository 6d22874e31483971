/**
 * The tables of `migrations/control/`, applied to the control database only, after the tenant
 * folder: `CONTROL_TABLES` (src/db/shards.ts) minus the directory mirrors in ./tenant.ts.
 * drizzle.control.config.ts reads it; test/node/migration-sets.test.ts keeps both lists honest.
 */

export * from "../schema/credentials";
export * from "../schema/dead-letters";
export { passwordCredentials, platformState, roleAssignments } from "../schema/identity";
export * from "../schema/sessions";
export * from "../schema/shard-sizes";
export * from "../schema/sso";
export * from "../schema/sweep-runs";
export * from "../schema/tenant-moves";
export * from "../schema/white-label";
