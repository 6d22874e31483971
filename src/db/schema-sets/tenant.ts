/**
 * The tables of `migrations/tenant/`, applied to every database (each shard, and the control database,
 * which is shard 0): every tenant-owned table plus the directory tables tenant rows reference by
 * foreign key (`agencies`, `tenants`, `users`), which shards hold as mirrors (docs/scaling.md).
 * drizzle.tenant.config.ts reads it; test/node/migration-sets.test.ts checks that this set and
 * ./control.ts partition src/db/schema. A table added to a module re-exported whole here is in.
 */

export * from "../schema/alerts";
export * from "../schema/analytics";
export * from "../schema/assistant";
export * from "../schema/audit";
export * from "../schema/auto-replies";
export * from "../schema/automation";
export * from "../schema/background-jobs";
export * from "../schema/campaigns";
export * from "../schema/compliance";
export * from "../schema/contacts";
export * from "../schema/events";
export * from "../schema/experiments";
export * from "../schema/exports";
export * from "../schema/feedback";
export { users } from "../schema/identity";
export * from "../schema/inbox";
export * from "../schema/integrations";
export * from "../schema/links";
export * from "../schema/messaging-settings";
export * from "../schema/outbox";
export * from "../schema/review-links";
export * from "../schema/reviews";
export * from "../schema/sequences";
export * from "../schema/solicitations";
export * from "../schema/templates";
export * from "../schema/tenancy";
export * from "../schema/webhooks";
export * from "../schema/whatsapp-templates";
export * from "../schema/widgets";
