/**
 * The composition root: every piece of background work and every late-bound hook, in one place.
 * Modules export their consumers, sweeps, event handlers and job runners; nothing registers itself
 * on import. To add one, export it from the module and name it in the right table below
 * (docs/ARCHITECTURE.md, "Wiring"). test/node/wiring.test.ts checks the queue table against
 * wrangler.toml.
 */

import { CRONS, type Sweeps } from "./background/cron";
import { consumeDeadLetters } from "./background/dead-letter";
import {
  dispatchStaleEventsSweep,
  type EventHandler,
  eventsConsumer,
  purgeDispatchedEventsSweep,
  purgeProcessedEventsSweep,
} from "./background/events";
import { type QueueConsumers, splitQueue } from "./background/queue";
import { acrossShards, byTenantShard, shardSizesSweep, tenantIdField } from "./background/shards";
import type { Hooks } from "./hooks";
import type { Operation } from "./lib/operation";
import { isTenantMoveMessage, tenantMovesConsumer, tenantMovesWatchdogSweep } from "./modules/admin/background";
import { operations as adminOperations } from "./modules/admin/operations";
import { operations as agencyOperations } from "./modules/agency/operations";
import { operations as agentsOperations } from "./modules/agents/operations";
import { draftResponse } from "./modules/agents/reply-drafting";
import { alertDigestsSweep, reviewAlertsHandler } from "./modules/alerts/background";
import { operations as alertsOperations } from "./modules/alerts/operations";
import {
  analyticsRollupsHandler,
  flushDirtyRollupsSweep,
  isRollupRebuildMessage,
  purgeRollupCellsSweep,
  rollupRebuildConsumer,
} from "./modules/analytics/background";
import { operations as analyticsOperations } from "./modules/analytics/operations";
import { operations as apiKeysOperations } from "./modules/api-keys/operations";
import { operations as assistantOperations } from "./modules/assistant/operations";
import { operations as auditOperations } from "./modules/audit/operations";
import { operations as authOperations } from "./modules/auth/operations";
import { automationRulesHandler } from "./modules/automation/background";
import { operations as automationOperations } from "./modules/automation/operations";
import { operations as brandsOperations } from "./modules/brands/operations";
import { operations as campaignsOperations } from "./modules/campaigns/operations";
import { runCampaignSendBulk } from "./modules/campaigns/send-bulk-job";
import { competitorRefreshSweep } from "./modules/competitors/background";
import { operations as competitorsOperations } from "./modules/competitors/operations";
import { operations as complianceOperations } from "./modules/compliance/operations";
import { contactsRetentionSweep } from "./modules/contacts/background";
import { consentPersonalData } from "./modules/contacts/consent";
import { runContactsImport } from "./modules/contacts/import-job";
import { operations as contactsOperations } from "./modules/contacts/operations";
import { operations as devMailboxOperations } from "./modules/dev-mailbox/operations";
import { operations as experimentsOperations } from "./modules/experiments/operations";
import { runTenantExport } from "./modules/exports/job";
import { operations as exportsOperations } from "./modules/exports/operations";
import { feedbackPersonalData } from "./modules/feedback/privacy";
import { purgeSessionsSweep } from "./modules/identity/background";
import { operations as inboxOperations } from "./modules/inbox/operations";
import { runCrmImport } from "./modules/integrations/crm-import";
import { operations as integrationsOperations } from "./modules/integrations/operations";
import { purgeFinishedJobsSweep } from "./modules/jobs/background";
import { operations as jobsOperations } from "./modules/jobs/operations";
import { type JobRunners, jobsConsumer } from "./modules/jobs/runner";
import { clicksConsumer, shortLinkClicks } from "./modules/links/background";
import { operations as locationsOperations } from "./modules/locations/operations";
import { skillOf } from "./modules/mcp/skills/operation";
import type { Skill } from "./modules/mcp/skills/registry";
import { operations as messagingSettingsOperations } from "./modules/messaging-settings/operations";
import { connectedAppsOf } from "./modules/oauth/grants";
import { operations as oauthOperations } from "./modules/oauth/operations";
import { webhookDeliveryConsumer, webhookFanOutHandler } from "./modules/outgoing-webhooks/background";
import { operations as outgoingWebhooksOperations } from "./modules/outgoing-webhooks/operations";
import { recommendationRulesSweep, recommendationWakeSweep } from "./modules/recommendations/background";
import { operations as recommendationsOperations } from "./modules/recommendations/operations";
import { operations as regionsOperations } from "./modules/regions/operations";
import { reputationScoresSweep } from "./modules/reputation/background";
import { operations as reputationOperations } from "./modules/reputation/operations";
import { reviewLinkClicks } from "./modules/review-links/clicks";
import { operations as reviewLinksOperations } from "./modules/review-links/operations";
import { autoRepliesHandler, autoReplyPublishSweep } from "./modules/reviews/auto-replies/background";
import {
  replyModerationSweep,
  reviewSyncConsumer,
  reviewSyncScheduleSweep,
  slaEscalationSweep,
} from "./modules/reviews/background";
import { operations as reviewsOperations } from "./modules/reviews/operations";
import { runReviewSyncJob } from "./modules/reviews/sync-job";
import { sequenceStepsSweep, sequencesHandler } from "./modules/sequences/background";
import { idempotencyKeysPurgeSweep, sendsConsumer, stalePendingSweep } from "./modules/solicitations/background";
import { convertSolicitation, outcomesFromSolicitations } from "./modules/solicitations/hooks";
import { operations as solicitationsOperations } from "./modules/solicitations/operations";
import { solicitationPersonalData } from "./modules/solicitations/privacy";
import { createSequenceStep } from "./modules/solicitations/sequence-step";
import { whatsappSmsFallbackHandler } from "./modules/solicitations/sms-fallback";
import { purgeExpiredSamlSweep } from "./modules/sso/background";
import { operations as ssoOperations } from "./modules/sso/operations";
import { operations as surveysOperations } from "./modules/surveys/operations";
import { operations as templatesOperations } from "./modules/templates/operations";
import { operations as usersOperations } from "./modules/users/operations";
import { customHostnameStatusSweep } from "./modules/white-label/background";
import { operations as whiteLabelOperations } from "./modules/white-label/operations";
import { widgetCacheHandler } from "./modules/widgets/background";
import { operations as widgetsOperations } from "./modules/widgets/operations";

/** Event type -> work: every handler sees every event and picks its own (`select`); order is run order. */
export const EVENT_HANDLERS: EventHandler[] = [
  analyticsRollupsHandler,
  webhookFanOutHandler,
  automationRulesHandler,
  sequencesHandler,
  widgetCacheHandler,
  autoRepliesHandler,
  reviewAlertsHandler,
  whatsappSmsFallbackHandler,
];

/** Job kind (background_jobs.type) -> runner; the type makes a kind without a runner a compile error. */
export const JOB_RUNNERS: JobRunners = {
  crm_import: runCrmImport,
  // the long jobs an MCP client may follow as tasks (src/modules/mcp/tasks.ts)
  contacts_import: runContactsImport,
  campaign_send_bulk: runCampaignSendBulk,
  review_sync: runReviewSyncJob,
  tenant_export: runTenantExport,
};

/** Queue name (wrangler.toml [[queues.consumers]]) -> consumer. */
export const queueConsumers = (
  eventHandlers: EventHandler[] = EVENT_HANDLERS,
  jobRunners: JobRunners = JOB_RUNNERS,
): QueueConsumers => ({
  // tenant work runs on the tenant's shard (src/background/shards.ts); clicks split per click, dead letters are platform rows
  sends: byTenantShard(sendsConsumer, tenantIdField),
  "review-sync": byTenantShard(reviewSyncConsumer, tenantIdField),
  // events, and the analytics' delayed rebuilds of the rollup cells a batch left dirty (src/modules/analytics/rebuild-later.ts)
  events: splitQueue(
    isRollupRebuildMessage,
    byTenantShard(rollupRebuildConsumer, tenantIdField),
    byTenantShard(eventsConsumer(eventHandlers), tenantIdField),
  ),
  webhooks: byTenantShard(webhookDeliveryConsumer, tenantIdField),
  // tenant moves are control-plane jobs (one record per move, src/modules/admin/background.ts); the rest are tenant jobs
  jobs: splitQueue(isTenantMoveMessage, tenantMovesConsumer, byTenantShard(jobsConsumer(jobRunners), tenantIdField)),
  clicks: clicksConsumer([shortLinkClicks, reviewLinkClicks]),
  "dead-letter": consumeDeadLetters,
});

/** Cron expression (wrangler.toml [triggers]) -> sweeps, run side by side. */
export const SWEEPS: Sweeps = {
  [CRONS.frequent]: [
    dispatchStaleEventsSweep,
    reviewSyncScheduleSweep,
    replyModerationSweep,
    slaEscalationSweep,
    flushDirtyRollupsSweep,
    reputationScoresSweep,
    competitorRefreshSweep,
    recommendationRulesSweep,
    recommendationWakeSweep,
    stalePendingSweep,
    idempotencyKeysPurgeSweep,
    sequenceStepsSweep(createSequenceStep),
    autoReplyPublishSweep,
    alertDigestsSweep,
  ]
    .map(acrossShards)
    // custom hostnames are control-plane rows (looked up by host before the tenant is known): swept once
    .concat([customHostnameStatusSweep])
    // tenant moves are control-plane records: a stalled one is resumed once, not per shard
    .concat([tenantMovesWatchdogSweep]),
  [CRONS.daily]: [
    ...[
      purgeProcessedEventsSweep,
      purgeDispatchedEventsSweep,
      contactsRetentionSweep,
      purgeRollupCellsSweep,
      reputationScoresSweep,
      recommendationRulesSweep,
      purgeFinishedJobsSweep,
    ].map(acrossShards),
    // SAML request/assertion rows are control-plane rows (found before the tenant is known)
    purgeExpiredSamlSweep,
    purgeSessionsSweep,
    // each shard's size, recorded on the control plane for placement (src/db/shards.ts)
    shardSizesSweep,
  ],
};

/** Calls from a module into one that depends on it (src/hooks.ts). */
export const HOOKS: Hooks = {
  experimentOutcomes: outcomesFromSolicitations,
  convertSolicitation,
  personalData: [consentPersonalData, solicitationPersonalData, feedbackPersonalData],
  draftReply: draftResponse,
  connectedApps: connectedAppsOf,
};

/**
 * The catalogue: every operation, declared once in its module's `operations` array (src/lib/operation.ts,
 * docs/ARCHITECTURE.md "How to add an operation"). Its REST routes (src/app.ts `restRoutes`), MCP tools
 * (`skillOf`, below) and agent tools (agents/tools.ts, from the installed catalogue) are derived from this one list.
 */
export const OPERATIONS: Operation[] = [
  ...adminOperations,
  ...agencyOperations,
  ...agentsOperations,
  ...alertsOperations,
  ...analyticsOperations,
  ...apiKeysOperations,
  ...assistantOperations,
  ...auditOperations,
  ...authOperations,
  ...automationOperations,
  ...brandsOperations,
  ...campaignsOperations,
  ...competitorsOperations,
  ...complianceOperations,
  ...contactsOperations,
  ...devMailboxOperations,
  ...experimentsOperations,
  ...exportsOperations,
  ...inboxOperations,
  ...integrationsOperations,
  ...jobsOperations,
  ...locationsOperations,
  ...messagingSettingsOperations,
  ...oauthOperations,
  ...outgoingWebhooksOperations,
  ...recommendationsOperations,
  ...regionsOperations,
  ...reputationOperations,
  ...reviewLinksOperations,
  ...reviewsOperations,
  ...solicitationsOperations,
  ...ssoOperations,
  ...surveysOperations,
  ...templatesOperations,
  ...usersOperations,
  ...whiteLabelOperations,
  ...widgetsOperations,
];

/** What the MCP server offers: every operation with an MCP door, as a tool. */
export const SKILLS: Skill[] = OPERATIONS.filter((op) => op.mcp).map(skillOf);

export interface Wiring {
  queues: QueueConsumers;
  sweeps: Sweeps;
  hooks: Hooks;
  /** the catalogue: REST routes, agent tools and the console's operations */
  operations: Operation[];
  /** the MCP tools (derived from `operations`) */
  skills: Skill[];
}

export const WIRING: Wiring = {
  queues: queueConsumers(),
  sweeps: SWEEPS,
  hooks: HOOKS,
  operations: OPERATIONS,
  skills: SKILLS,
};
