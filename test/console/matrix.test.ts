// The console's page x role matrix over HTTP (#45 "Tests"): every page and every form of a tenant, for every
// way of reaching tenant A (platform admin, the four tenant roles, A's agency admin) and for users of another
// tenant and another agency. Each answers as the role allows (the forms run their REST twin's role check), and
// no page shows another tenant's data. The tenants sit on different shards. A new page or form joins PAGES or
// FORMS (or, for the confirm page, whose answer depends on who made the call, CONFIRM), or the enumeration
// check at the end fails.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customHostnames } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { nowIso } from "../../src/lib/time";
import { consoleRoutes } from "../../src/modules/console/routes";
import { setWebhookFetch } from "../../src/modules/outgoing-webhooks/transport";
import { endpoint } from "../automation/helpers";
import { pollUntil } from "../helpers/poll";
import { control, createWorld, seedUser, type World } from "../helpers/seed";
import { confirmationLink, statelessCall } from "../mcp/helpers";
import { ingest, newLocation } from "../reviews/helpers";
import { IDP, idpMetadataXml, KEYS } from "../sso/idp";
import { ConsoleBrowser, textOf } from "./helpers";

type Actor = keyof World["users"];
const INSIDERS = ["platformAdmin", "tenantAdmin", "manager", "tenantUser", "viewer", "agencyAdmin"] as const;
const OUTSIDERS = ["otherAgencyAdmin", "tenantBAdmin"] as const;
/** the REST twins' minimum roles: inbox and reply writes need tenant_user, approving and publishing a manager */
const WRITERS: readonly Actor[] = ["platformAdmin", "tenantAdmin", "manager", "tenantUser", "agencyAdmin"];
const APPROVERS: readonly Actor[] = ["platformAdmin", "tenantAdmin", "manager", "agencyAdmin"];
/** the team, API key and audit routes' canAdminister: the tenant's admin, and platform and agency scope acting as one */
const ADMINS: readonly Actor[] = ["platformAdmin", "tenantAdmin", "agencyAdmin"];
/** locations, review links and widgets are canManage: the same people as approving */
const MANAGERS = APPROVERS;

const A_TEXT = "Matrix review of tenant A";
const B_TEXT = "Matrix secret of tenant B";

let w: World;
let reviewA: string;
let reviewB: string;
let replyA: string;
/** a person of tenant A the team forms change (never one of the actors), and one with an invite pending */
let personA: string;
let inviteeA: string;
/** tenant B's person and key, for the 404 of another tenant's ids */
let personB: string;
let keyB: string;
/** one fresh pending invite and one fresh key per post: a revoked one cannot be revoked again */
const revokees: string[] = [];
const keysA: string[] = [];
/** tenant A's webhook (with a delivery), automation rule and finished export; one of each deleted per post */
let hookA: string;
let deliveryA: string;
let ruleA: string;
let exportA: string;
const hooksToDelete: string[] = [];
const rulesToDelete: string[] = [];
/** tenant B's, for the 404 of another tenant's ids */
let hookB: string;
let ruleB: string;
let exportB: string;
/** tenant A's review requests: a campaign, templates in each state a form needs, experiments in each state */
let campaignA: string;
let templateDraft: string;
let templateToApprove: string;
let templateApproved: string;
let templateToBind: string;
let expDraft: string;
let expRunning: string;
let expPaused: string;
let expOpen: string;
/** one of each per post: a binding to remove, a campaign whose sequence is deleted */
const bindingsToRemove: string[] = [];
const sequencesToDelete: string[] = [];
const nextOf = (pool: string[]) => pool.shift() ?? "none-left";
let invites = 0;
/** the places pages' subjects in tenant A: a location, a sandbox connection (tested against a stand-in), a review
 * link, a widget, each insider's own alert, and one fresh connection, link and widget per delete */
let locationA: string;
let integrationA: string;
let linkA: string;
let widgetA: string;
const alertsOf = new Map<Actor, string>();
const integrationsA: string[] = [];
const linksA: string[] = [];
const widgetsA: string[] = [];
let places = 0;
/** the contacts pages' subjects: a contact and a finished import of tenant A, tenant B's, one contact per erase */
let contactA: string;
let importA: string;
let contactB: string;
const contactsToErase: string[] = [];
let added = 0;
/** the white-label page's subjects: a hostname of tenant A to check again, and one per remove (2 outsiders, the refused, the allowed) */
let hostnameA: string;
const hostnamesToRemove: string[] = [];
/** the providers the forms reach (a connection test, a DNS lookup, a test SMS) answer from here, not the internet */
const realFetch = globalThis.fetch;
const browsers = new Map<Actor, ConsoleBrowser>();
const t = (p = "") => `/app/t/${w.tenantA.id}${p}`;

/**
 * Every tenant page (its route pattern, a concrete address, and who reads it when not every insider does). The
 * address may depend on who asks (an alert is its owner's; managers read everyone's).
 */
const PAGES: [pattern: string, path: (who?: Actor) => string, readers?: readonly Actor[]][] = [
  ["/app/t/:tenantId", () => t()],
  ["/app/t/:tenantId/inbox", () => t("/inbox")],
  ["/app/t/:tenantId/inbox/fresh", () => t("/inbox/fresh")],
  ["/app/t/:tenantId/inbox/:itemId", () => t(`/inbox/${reviewA}?type=review`)],
  ["/app/t/:tenantId/approvals", () => t("/approvals")],
  ["/app/t/:tenantId/reviews", () => t("/reviews")],
  ["/app/t/:tenantId/reviews/:reviewId", () => t(`/reviews/${reviewA}`)],
  ["/app/t/:tenantId/contacts", () => t("/contacts")],
  ["/app/t/:tenantId/contacts/import", () => t("/contacts/import")],
  ["/app/t/:tenantId/contacts/import/:jobId", () => t(`/contacts/import/${importA}`)],
  ["/app/t/:tenantId/contacts/import/:jobId/status", () => t(`/contacts/import/${importA}/status`)],
  ["/app/t/:tenantId/contacts/import/:jobId/errors", () => t(`/contacts/import/${importA}/errors`)],
  ["/app/t/:tenantId/contacts/:contactId", () => t(`/contacts/${contactA}`)],
  ["/app/t/:tenantId/settings", () => t("/settings")],
  ["/app/t/:tenantId/requests", () => t("/requests")],
  ["/app/t/:tenantId/campaigns", () => t("/campaigns")],
  ["/app/t/:tenantId/campaigns/:campaignId", () => t(`/campaigns/${campaignA}`)],
  ["/app/t/:tenantId/campaigns/:campaignId/progress", () => t(`/campaigns/${campaignA}/progress`)],
  ["/app/t/:tenantId/templates", () => t("/templates")],
  ["/app/t/:tenantId/templates/:templateId", () => t(`/templates/${templateApproved}`)],
  ["/app/t/:tenantId/experiments", () => t("/experiments")],
  ["/app/t/:tenantId/experiments/:experimentId", () => t(`/experiments/${expDraft}`)],
  ["/app/t/:tenantId/solicitations", () => t("/solicitations")],
  ["/app/t/:tenantId/team", () => t("/team")],
  ["/app/t/:tenantId/api-keys", () => t("/api-keys"), ADMINS],
  ["/app/t/:tenantId/sso", () => t("/sso"), ADMINS],
  ["/app/t/:tenantId/audit", () => t("/audit"), ADMINS],
  ["/app/t/:tenantId/audit/export", () => t("/audit/export"), ADMINS],
  ["/app/t/:tenantId/white-label", () => t("/white-label")],
  ["/app/t/:tenantId/webhooks", () => t("/webhooks")],
  ["/app/t/:tenantId/webhooks/:webhookId", () => t(`/webhooks/${hookA}`)],
  ["/app/t/:tenantId/automation", () => t("/automation?action=add_tags")],
  ["/app/t/:tenantId/automation/:ruleId", () => t(`/automation/${ruleA}`)],
  ["/app/t/:tenantId/data-export", () => t("/data-export"), ADMINS],
  ["/app/t/:tenantId/data-export/:exportId", () => t(`/data-export/${exportA}`), ADMINS],
  ["/app/t/:tenantId/data-export/:exportId/status", () => t(`/data-export/${exportA}/status`), ADMINS],
  ["/app/t/:tenantId/data-export/:exportId/download", () => t(`/data-export/${exportA}/download`), ADMINS],
  ["/app/t/:tenantId/locations", () => t("/locations")],
  ["/app/t/:tenantId/locations/:locationId", () => t(`/locations/${locationA}`)],
  ["/app/t/:tenantId/integrations", () => t("/integrations")],
  ["/app/t/:tenantId/messaging", () => t("/messaging")],
  ["/app/t/:tenantId/review-links", () => t("/review-links")],
  ["/app/t/:tenantId/review-links/:linkId", () => t(`/review-links/${linkA}`)],
  ["/app/t/:tenantId/widgets", () => t("/widgets")],
  ["/app/t/:tenantId/widgets/:widgetId", () => t(`/widgets/${widgetA}`)],
  ["/app/t/:tenantId/compliance", () => t("/compliance")],
  ["/app/t/:tenantId/alerts", () => t("/alerts")],
  ["/app/t/:tenantId/alerts/:subscriptionId", (who) => t(`/alerts/${alertOf(who)}`)],
];
/** the actor's alert (its own, or for the platform and agency admins one of the manager's); an outsider asks for the viewer's */
const alertOf = (who?: Actor) => alertsOf.get(who ?? "viewer") ?? alertsOf.get("viewer");
/** pages that answer data, not a page of the layout */
const NOT_HTML = new Set([
  "/app/t/:tenantId/inbox/fresh",
  "/app/t/:tenantId/campaigns/:campaignId/progress",
  "/app/t/:tenantId/audit/export",
  "/app/t/:tenantId/data-export/:exportId/status",
  "/app/t/:tenantId/data-export/:exportId/download",
  "/app/t/:tenantId/contacts/import/:jobId/status",
  "/app/t/:tenantId/contacts/import/:jobId/errors",
]);

/**
 * Every tenant form, with the fields a browser sends and who may use it. `answer` 200: the form's answer is the
 * page itself (the minted API key, shown once), not a redirect.
 */
const FORMS: [
  pattern: string,
  path: (who?: Actor) => string,
  fields: () => Record<string, string | string[]>,
  allowed: readonly Actor[],
  answer?: 200,
][] = [
  [
    "/app/t/:tenantId/inbox/:itemId/assign",
    () => t(`/inbox/${reviewA}/assign`),
    () => ({ type: "review", userId: w.users.tenantUser.id }),
    WRITERS,
  ],
  [
    "/app/t/:tenantId/inbox/:itemId/tags",
    () => t(`/inbox/${reviewA}/tags`),
    () => ({ type: "review", tags: "vip" }),
    WRITERS,
  ],
  [
    "/app/t/:tenantId/inbox/:itemId/status",
    () => t(`/inbox/${reviewA}/status`),
    () => ({ type: "review", status: "open" }),
    WRITERS,
  ],
  [
    "/app/t/:tenantId/inbox/:itemId/note",
    () => t(`/inbox/${reviewA}/note`),
    () => ({ type: "review", note: "A note" }),
    WRITERS,
  ],
  [
    "/app/t/:tenantId/reviews/:reviewId/replies",
    () => t(`/reviews/${reviewA}/replies`),
    () => ({ text: "Thanks" }),
    WRITERS,
  ],
  ["/app/t/:tenantId/replies/:replyId/edit", () => t(`/replies/${replyA}/edit`), () => ({ text: "Thanks!" }), WRITERS],
  ["/app/t/:tenantId/replies/:replyId/submit", () => t(`/replies/${replyA}/submit`), () => ({}), WRITERS],
  [
    "/app/t/:tenantId/replies/:replyId/reject",
    () => t(`/replies/${replyA}/reject`),
    () => ({ reason: "Tone" }),
    APPROVERS,
  ],
  ["/app/t/:tenantId/replies/:replyId/approve", () => t(`/replies/${replyA}/approve`), () => ({}), APPROVERS],
  ["/app/t/:tenantId/replies/:replyId/publish", () => t(`/replies/${replyA}/publish`), () => ({}), APPROVERS],
  [
    "/app/t/:tenantId/contacts",
    () => t("/contacts"),
    () => ({ email: `matrix.contact.${++added}@example.test` }),
    WRITERS,
  ],
  // url-encoded, without its file: the role check, then the form's refusal as a sentence
  ["/app/t/:tenantId/contacts/import", () => t("/contacts/import"), () => ({}), WRITERS],
  [
    "/app/t/:tenantId/contacts/:contactId/suppress",
    () => t(`/contacts/${contactA}/suppress`),
    () => ({ reason: "matrix" }),
    WRITERS,
  ],
  ["/app/t/:tenantId/contacts/:contactId/unsuppress", () => t(`/contacts/${contactA}/unsuppress`), () => ({}), WRITERS],
  [
    "/app/t/:tenantId/contacts/:contactId/consent",
    () => t(`/contacts/${contactA}/consent`),
    () => ({ channel: "email", source: "matrix" }),
    WRITERS,
  ],
  [
    "/app/t/:tenantId/contacts/:contactId/consent/:channel/revoke",
    () => t(`/contacts/${contactA}/consent/sms/revoke`),
    () => ({}),
    WRITERS,
  ],
  [
    "/app/t/:tenantId/contacts/:contactId/erase",
    () => t(`/contacts/${nextOf(contactsToErase)}/erase`),
    () => ({ understand: "yes" }),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/compliance",
    () => t("/compliance"),
    () => ({
      quietHoursStart: "21:00",
      quietHoursEnd: "08:00",
      frequencyCapDaily: "3",
      frequencyCapWeekly: "5",
      requireEmailConsent: "true",
      requireSmsOptIn: "true",
      retentionDays: "730",
      allowDataExport: "true",
      allowDataDeletion: "true",
    }),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/team/invite",
    () => t("/team/invite"),
    () => ({ email: `matrix.invitee.${++invites}@example.test`, role: "viewer" }),
    ADMINS,
  ],
  ["/app/t/:tenantId/team/:userId/roles", () => t(`/team/${personA}/roles`), () => ({ role: "manager" }), ADMINS],
  ["/app/t/:tenantId/team/:userId/deactivate", () => t(`/team/${personA}/deactivate`), () => ({}), ADMINS],
  ["/app/t/:tenantId/team/:userId/reactivate", () => t(`/team/${personA}/reactivate`), () => ({}), ADMINS],
  ["/app/t/:tenantId/team/:userId/invite/resend", () => t(`/team/${inviteeA}/invite/resend`), () => ({}), ADMINS],
  [
    "/app/t/:tenantId/team/:userId/invite/revoke",
    () => t(`/team/${nextOf(revokees)}/invite/revoke`),
    () => ({}),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/api-keys",
    () => t("/api-keys"),
    () => ({ name: "Matrix key", scopes: ["read:reviews"] }),
    ADMINS,
    200,
  ],
  // single sign-on: never enforced here (it would close the tenant to these password sessions)
  [
    "/app/t/:tenantId/sso/metadata",
    () => t("/sso/metadata"),
    () => ({ metadataXml: idpMetadataXml([KEYS.idp1.cert]) }),
    ADMINS,
  ],
  ["/app/t/:tenantId/sso", () => t("/sso"), () => ({ idpEntityId: IDP.entityId, defaultRole: "viewer" }), ADMINS],
  ["/app/t/:tenantId/sso/enabled", () => t("/sso/enabled"), () => ({ enabled: "false" }), ADMINS],
  ["/app/t/:tenantId/api-keys/:keyId/revoke", () => t(`/api-keys/${nextOf(keysA)}/revoke`), () => ({}), ADMINS],
  [
    "/app/t/:tenantId/white-label",
    () => t("/white-label"),
    () => ({ name: "Matrix brand", primaryColor: "#0f766e" }),
    ADMINS,
  ],
  // url-encoded, without its file: the role check, then the form's refusal as a sentence
  ["/app/t/:tenantId/white-label/logo", () => t("/white-label/logo"), () => ({}), ADMINS],
  ["/app/t/:tenantId/white-label/reset", () => t("/white-label/reset"), () => ({}), ADMINS],
  // no hostname provider here: the allowed hear REST's 409 as a sentence
  [
    "/app/t/:tenantId/white-label/hostnames",
    () => t("/white-label/hostnames"),
    () => ({ hostname: "reviews.matrix.test" }),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/white-label/hostnames/:hostnameId/refresh",
    () => t(`/white-label/hostnames/${hostnameA}/refresh`),
    () => ({}),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/white-label/hostnames/:hostnameId/delete",
    () => t(`/white-label/hostnames/${nextOf(hostnamesToRemove)}/delete`),
    () => ({}),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/webhooks",
    () => t("/webhooks"),
    () => ({ url: "https://hooks.example.com/matrix", events: ["review.created"] }),
    ADMINS,
    200,
  ],
  [
    "/app/t/:tenantId/webhooks/:webhookId/edit",
    () => t(`/webhooks/${hookA}/edit`),
    () => ({ url: "https://hooks.example.com/a", events: ["review.created"], isActive: "true" }),
    ADMINS,
  ],
  ["/app/t/:tenantId/webhooks/:webhookId/test", () => t(`/webhooks/${hookA}/test`), () => ({}), ADMINS],
  [
    "/app/t/:tenantId/webhooks/:webhookId/rotate-secret",
    () => t(`/webhooks/${hookA}/rotate-secret`),
    () => ({}),
    ADMINS,
    200,
  ],
  [
    "/app/t/:tenantId/webhooks/:webhookId/delete",
    () => t(`/webhooks/${nextOf(hooksToDelete)}/delete`),
    () => ({}),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
    () => t(`/webhooks/${hookA}/deliveries/${deliveryA}/redeliver`),
    () => ({}),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/automation",
    () => t("/automation"),
    () => ({ action: "add_tags", name: "Matrix rule", triggerEventType: "review.created", tags: "vip" }),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/automation/:ruleId/active",
    () => t(`/automation/${ruleA}/active`),
    () => ({ isActive: "true" }),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/automation/:ruleId/delete",
    () => t(`/automation/${nextOf(rulesToDelete)}/delete`),
    () => ({}),
    APPROVERS,
  ],
  ["/app/t/:tenantId/data-export", () => t("/data-export"), () => ({}), ADMINS],
  ["/app/t/:tenantId/locations", () => t("/locations"), () => ({ name: `Matrix place ${++places}` }), MANAGERS],
  [
    "/app/t/:tenantId/locations/:locationId",
    () => t(`/locations/${locationA}`),
    () => ({ name: "Matrix place A", isActive: "true" }),
    MANAGERS,
  ],
  [
    "/app/t/:tenantId/integrations",
    () => t("/integrations"),
    () => ({ connectorType: "hubspot", name: "Matrix CRM", "credentials.accessToken": "matrix-token" }),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/integrations/:integrationId",
    () => t(`/integrations/${integrationA}`),
    () => ({
      name: "Matrix Google",
      locationId: locationA,
      "config.accountId": "1",
      "config.locationId": "2",
      isEnabled: "true",
    }),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/integrations/:integrationId/test",
    () => t(`/integrations/${integrationA}/test`),
    () => ({}),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/integrations/:integrationId/delete",
    () => t(`/integrations/${nextOf(integrationsA)}/delete`),
    () => ({}),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/messaging/email",
    () => t("/messaging/email"),
    () => ({
      provider: "smtp",
      fromAddress: "matrix@matrix.example",
      fromName: "Matrix",
      "smtp.o.host": "smtp.matrix.example",
      "smtp.o.port": "587",
    }),
    ADMINS,
  ],
  ["/app/t/:tenantId/messaging/email/verify-domain", () => t("/messaging/email/verify-domain"), () => ({}), ADMINS],
  [
    "/app/t/:tenantId/messaging/sms",
    () => t("/messaging/sms"),
    () => ({
      provider: "twilio",
      fromNumber: "+15551234567",
      "twilio.o.accountSid": `AC${"0".repeat(32)}`,
      "twilio.s.authToken": "matrix-token",
    }),
    ADMINS,
  ],
  [
    "/app/t/:tenantId/messaging/whatsapp",
    () => t("/messaging/whatsapp"),
    () => ({ provider: "meta", channelRegistrationId: "1234567", "meta.s.accessToken": "matrix-token" }),
    ADMINS,
  ],
  // after the SMS set-up: Twilio's stand-in answers (realFetch's replacement in beforeAll)
  [
    "/app/t/:tenantId/messaging/test",
    () => t("/messaging/test"),
    () => ({ channel: "sms", to: "+15557654321" }),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/review-links",
    () => t("/review-links"),
    () => ({ locationId: locationA, name: "Matrix link", "weights.google": "1" }),
    MANAGERS,
  ],
  [
    "/app/t/:tenantId/review-links/:linkId",
    () => t(`/review-links/${linkA}`),
    () => ({ name: "Matrix link", "weights.google": "1", isActive: "true" }),
    MANAGERS,
  ],
  [
    "/app/t/:tenantId/review-links/:linkId/delete",
    () => t(`/review-links/${nextOf(linksA)}/delete`),
    () => ({}),
    MANAGERS,
  ],
  ["/app/t/:tenantId/widgets", () => t("/widgets"), () => ({ name: "Matrix widget" }), MANAGERS],
  [
    "/app/t/:tenantId/widgets/:widgetId",
    () => t(`/widgets/${widgetA}`),
    () => ({ name: "Matrix widget", isActive: "true" }),
    MANAGERS,
  ],
  ["/app/t/:tenantId/widgets/:widgetId/delete", () => t(`/widgets/${nextOf(widgetsA)}/delete`), () => ({}), MANAGERS],
  // every role keeps its own alerts (the service's rule; managers also others')
  ["/app/t/:tenantId/alerts", () => t("/alerts"), () => ({ instantEmail: "true" }), INSIDERS],
  [
    "/app/t/:tenantId/alerts/:subscriptionId",
    (who) => t(`/alerts/${alertOf(who)}`),
    () => ({ instantEmail: "true", isActive: "true" }),
    INSIDERS,
  ],
  [
    "/app/t/:tenantId/alerts/:subscriptionId/delete",
    (who) => t(`/alerts/${alertOf(who)}/delete`),
    () => ({}),
    INSIDERS,
  ],
  // review requests: campaigns and their sends are a manager's, templates a team member's, approval a manager's
  [
    "/app/t/:tenantId/campaigns",
    () => t("/campaigns"),
    () => ({ name: "Matrix campaign", type: "one_time", channels: "email" }),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/campaigns/:campaignId/send",
    () => t(`/campaigns/${campaignA}/send`),
    () => ({ locationId: locationA, channel: "email", audience: "all", limit: "1" }),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/campaigns/:campaignId/active",
    () => t(`/campaigns/${campaignA}/active`),
    () => ({ isActive: "true" }),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/campaigns/:campaignId/templates",
    () => t(`/campaigns/${campaignA}/templates`),
    () => ({ templateId: templateToBind }),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/campaigns/:campaignId/templates/:bindingId/delete",
    () => t(`/campaigns/${campaignA}/templates/${nextOf(bindingsToRemove)}/delete`),
    () => ({}),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/campaigns/:campaignId/sequence",
    () => t(`/campaigns/${campaignA}/sequence`),
    () => ({ stepIndex: "", stepChannel: "email", stepDelay: "0", stepTemplate: "" }),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/campaigns/:campaignId/sequence/delete",
    () => t(`/campaigns/${nextOf(sequencesToDelete)}/sequence/delete`),
    () => ({}),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/templates",
    () => t("/templates"),
    () => ({ name: "Matrix template", channel: "sms", bodyText: "Hi {{firstName}}" }),
    WRITERS,
  ],
  [
    "/app/t/:tenantId/templates/:templateId/edit",
    () => t(`/templates/${templateDraft}/edit`),
    () => ({ name: "Matrix draft", bodyText: "Hello {{firstName}}" }),
    WRITERS,
  ],
  [
    "/app/t/:tenantId/templates/:templateId/preview",
    () => t(`/templates/${templateApproved}/preview`),
    () => ({ bodyText: "Hello {{firstName}}" }),
    INSIDERS,
    200,
  ],
  [
    "/app/t/:tenantId/templates/:templateId/version",
    () => t(`/templates/${templateApproved}/version`),
    () => ({}),
    WRITERS,
  ],
  [
    "/app/t/:tenantId/templates/:templateId/approve",
    () => t(`/templates/${templateToApprove}/approve`),
    () => ({}),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/templates/:templateId/archive",
    () => t(`/templates/${templateToBind}/archive`),
    () => ({}),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/experiments",
    () => t("/experiments"),
    () => ({
      name: "Matrix experiment",
      hypothesis: "B wins",
      variantName: ["A", "B"],
      variantTraffic: ["50", "50"],
      variantTemplate: ["", ""],
    }),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/experiments/:experimentId/start",
    () => t(`/experiments/${expDraft}/start`),
    () => ({}),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/experiments/:experimentId/pause",
    () => t(`/experiments/${expRunning}/pause`),
    () => ({}),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/experiments/:experimentId/resume",
    () => t(`/experiments/${expPaused}/resume`),
    () => ({}),
    APPROVERS,
  ],
  [
    "/app/t/:tenantId/experiments/:experimentId/complete",
    () => t(`/experiments/${expOpen}/complete`),
    () => ({}),
    ADMINS,
  ],
];

afterAll(() => setWebhookFetch());

beforeAll(async () => {
  w = await createWorld({ shardA: 0, shardB: 1 });
  const [locA, locB] = await Promise.all([newLocation(w), newLocation(w, "tenantBAdmin")]);
  locationA = locA.id;
  reviewA = (await ingest(w, { locationId: locA.id, siteType: "first_party", rating: 2, text: A_TEXT })).id;
  reviewB = (await ingest(w, { locationId: locB.id, siteType: "first_party", rating: 1, text: B_TEXT }, "tenantBAdmin"))
    .id;
  // sessions as a sign-in opens them (the form's own proof is test/console/sessions.test.ts)
  for (const who of [...INSIDERS, ...OUTSIDERS]) {
    const b = new ConsoleBrowser();
    const landed = await b.seededSession(w.users[who].id);
    expect([landed.status, landed.text.includes('name="csrf"')], `${who} signed in`).toEqual([200, true]);
    browsers.set(who, b);
  }
  // a reply waiting for approval, drafted and submitted by the team member as in test/console/flows.test.ts
  const user = browsers.get("tenantUser")!;
  const back = t(`/reviews/${reviewA}`);
  const drafted = await user.follow(await user.post(t(`/reviews/${reviewA}/replies`), { back, text: "Thanks" }));
  replyA = /\/replies\/([a-z0-9]+)\/submit/.exec(drafted.text)![1]!;
  await user.post(t(`/replies/${replyA}/submit`), { back });

  // the team's and the keys' subjects: tenant B's carry B_TEXT, so a page showing them would leak it
  const a = w.as("tenantAdmin");
  personA = (await seedUser({ grants: [{ role: "viewer", scopeType: "tenant", scopeId: w.tenantA.id }] })).id;
  inviteeA = (await a.post("/v1/users/invite", { email: "matrix.pending@example.test", role: "viewer" })).body.id;
  // outsiders (2) and refused insiders (3) take one of each pool too, then each admin (3) its own
  for (let i = 0; i < 8; i++) {
    revokees.push(
      (await a.post("/v1/users/invite", { email: `matrix.revoke.${i}@example.test`, role: "viewer" })).body.id,
    );
    keysA.push((await a.post("/v1/api-keys", { name: `Matrix ${i}` })).body.id);
  }
  const b = w.as("tenantBAdmin");
  personB = (await b.post("/v1/users/invite", { email: "matrix.b@example.test", name: B_TEXT, role: "viewer" })).body
    .id;
  keyB = (await b.post("/v1/api-keys", { name: B_TEXT })).body.id;

  // webhooks, rules and exports of both tenants; deliveries answered by a stand-in endpoint
  setWebhookFetch(endpoint().fetch);
  const hook = async (as: typeof a) =>
    (await as.post("/v1/webhooks", { url: "https://hooks.example.com/a", events: ["review.created"] })).body.id;
  const rule = async (as: typeof a) =>
    (
      await as.post("/v1/automation-rules", {
        name: "Tag new reviews",
        triggerEventType: "review.created",
        actions: [{ type: "add_tags", config: { tags: ["new"] } }],
      })
    ).body.id;
  const exported = async (as: typeof a) => {
    const id = (await as.post("/v1/exports", {})).body.id;
    await pollUntil(
      () => as.get(`/v1/exports/${id}`),
      (r) => r.body.status === "succeeded",
      30_000,
    );
    return id as string;
  };
  [hookA, ruleA, hookB, ruleB] = await Promise.all([hook(a), rule(a), hook(b), rule(b)]);
  deliveryA = (await a.post(`/v1/webhooks/${hookA}/test`)).body.id;
  // as for the keys: every post takes one, the refused' and the outsiders' too
  for (let i = 0; i < 8; i++) {
    hooksToDelete.push(await hook(a));
    rulesToDelete.push(await rule(a));
  }
  [exportA, exportB] = await Promise.all([exported(a), exported(b)]);
  // the places pages' subjects: one each, a pool of eight (2 outsiders, the refused, the allowed) per delete
  const m = w.as("manager");
  locationA = locA.id;
  const sandbox = {
    connectorType: "google",
    locationId: locationA,
    isSandbox: true,
    config: { accountId: "1", locationId: "2", apiBaseUrl: "http://stand-in.test" },
    credentials: { accessToken: "matrix-token" },
  };
  integrationA = (await a.post("/v1/integrations", { ...sandbox, name: "Matrix Google" })).body.id;
  linkA = (await m.post("/v1/review-links", { locationId: locationA, weights: { google: 1 } })).body.id;
  widgetA = (await m.post("/v1/widgets", { name: "Matrix widget" })).body.id;
  for (let i = 0; i < 8; i++) {
    integrationsA.push((await a.post("/v1/integrations", { ...sandbox, name: `Matrix ${i}` })).body.id);
    linksA.push((await m.post("/v1/review-links", { locationId: locationA, weights: { google: 1 } })).body.id);
    widgetsA.push((await m.post("/v1/widgets", { name: `Matrix ${i}` })).body.id);
  }
  // alerts go to people with a role here: the platform and agency admins get one of the manager's, as managers may
  for (const who of INSIDERS) {
    const member = who !== "platformAdmin" && who !== "agencyAdmin";
    const made = await (member ? w.as(who) : a).post("/v1/alert-subscriptions", {
      instantEmail: true,
      ...(member ? {} : { userId: w.users.manager.id }),
    });
    expect(made.status, who).toBe(201);
    alertsOf.set(who, made.body.id);
  }
  // the contacts pages' subjects: tenant B's carries B_TEXT; a pool of eight (2 outsiders, the refused, the allowed) per erase
  contactA = (await a.post("/v1/contacts", { email: "matrix.contact@example.test", firstName: "Matrix" })).body.id;
  contactB = (await b.post("/v1/contacts", { email: "matrix.b.contact@example.test", firstName: B_TEXT })).body.id;
  for (let i = 0; i < 8; i++)
    contactsToErase.push((await a.post("/v1/contacts", { email: `matrix.erase.${i}@example.test` })).body.id);
  const upload = new FormData();
  upload.append("file", new File(["email\nmatrix.import@example.test\nnot-an-email\n"], "matrix.csv"));
  importA = (await a.post("/v1/contacts/import-jobs", upload)).body.id;
  await pollUntil(
    () => a.get(`/v1/contacts/import-jobs/${importA}`),
    (r) => r.body.status === "succeeded",
    20_000,
  );
  // tenant A's hostnames, never given to a provider (a removal then needs none)
  const hostname = async (name: string) => {
    const id = newId();
    const now = nowIso();
    await control().insert(customHostnames).values({
      id,
      scope: "tenant",
      scopeId: w.tenantA.id,
      agencyId: w.agencyA.id,
      hostname: name,
      providerId: null,
      status: "pending",
      verification: {},
      ownershipToken: "rops-verify=matrix",
      createdAt: now,
      updatedAt: now,
    });
    return id;
  };
  hostnameA = await hostname("reviews.matrix-a.test");
  for (let i = 0; i < 8; i++) hostnamesToRemove.push(await hostname(`remove-${i}.matrix-a.test`));
  // the sender domain the verify form looks up
  const email = await a.put("/v1/settings/email", {
    provider: "sendgrid",
    fromAddress: "matrix@matrix.example",
    fromName: "Matrix",
    credentials: { apiKey: "matrix-key" },
  });
  expect(email.status).toBe(200);
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const json = (body: unknown, status = 200) =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    if (url.host === "stand-in.test") return json({ reviews: [] });
    if (url.host === "cloudflare-dns.com") return json({ Status: 3 });
    if (url.host === "api.twilio.com") return json({ code: 20003, message: "Authenticate", status: 401 }, 401);
    return realFetch(input, init);
  }) as typeof fetch;

  // review requests: a campaign with bindings to remove, templates in the states the forms move, experiments
  const campaign = async () =>
    (await m.post("/v1/campaigns", { name: "Matrix", type: "one_time", channels: ["email"] })).body.id as string;
  const template = async (approved = false) => {
    const id = (await m.post("/v1/templates", { name: "Matrix", channel: "email", subject: "Hi", bodyText: "Hi" })).body
      .id as string;
    if (approved) await m.post(`/v1/templates/${id}/approve`);
    return id;
  };
  const experiment = async (...moves: string[]) => {
    const variants = [
      { name: "A", trafficPercent: 50 },
      { name: "B", trafficPercent: 50 },
    ];
    const id = (await m.post("/v1/experiments", { name: "Matrix", hypothesis: "B wins", variants })).body.id as string;
    for (const move of moves) await m.post(`/v1/experiments/${id}/${move}`);
    return id;
  };
  campaignA = await campaign();
  [templateDraft, templateToApprove, templateApproved, templateToBind] = await Promise.all([
    template(),
    template(),
    template(true),
    template(),
  ]);
  for (let i = 0; i < 8; i++) {
    const bound = await m.post(`/v1/campaigns/${campaignA}/templates`, {
      templateId: templateApproved,
      channel: "email",
      variantKey: `pool-${i}`,
    });
    bindingsToRemove.push(bound.body.id);
    const withSequence = await campaign();
    await m.put(`/v1/campaigns/${withSequence}/sequence`, {
      steps: [{ stepIndex: 0, channel: "email", delayDays: 0 }],
    });
    sequencesToDelete.push(withSequence);
  }
  [expDraft, expRunning, expPaused, expOpen] = await Promise.all([
    experiment(),
    experiment("start"),
    experiment("start", "pause"),
    experiment("start"),
  ]);
}, 120_000);

afterAll(() => {
  globalThis.fetch = realFetch;
});

describe("every tenant page, for every role", () => {
  for (const [pattern, path, readers] of PAGES) {
    it(`${pattern}: 200 with tenant A's data for its people, 404 for another tenant's, never tenant B's data`, async () => {
      for (const who of INSIDERS) {
        const page = await browsers.get(who)!.get(path(who));
        expect(page.text, `${who} ${pattern}`).not.toContain(B_TEXT);
        expect(page.text).not.toContain(w.tenantB.name);
        if (readers && !readers.includes(who)) {
          // REST's refusal for this role, as a page
          expect(page.status, `${who} ${pattern}`).toBe(403);
          expect(textOf(page.text), `${who} ${pattern}`).toMatch(/Your role here \([^)]+\) does not allow this\./);
          continue;
        }
        expect(page.status, `${who} ${pattern}`).toBe(200);
        if (!NOT_HTML.has(pattern)) expect(textOf(page.text), `${who} ${pattern}`).toContain(w.tenantA.name);
      }
      for (const who of OUTSIDERS) {
        const page = await browsers.get(who)!.get(path(who));
        expect(page.status, `${who} ${pattern}`).toBe(404);
        expect(page.text, `${who} ${pattern}`).not.toContain(A_TEXT);
        expect(page.text).not.toContain(w.tenantA.name);
      }
    });
  }

  it("tenant B's review and item under tenant A's address are 404 for everyone", async () => {
    for (const who of [...INSIDERS, ...OUTSIDERS])
      for (const path of [t(`/reviews/${reviewB}`), t(`/inbox/${reviewB}?type=review`)]) {
        const page = await browsers.get(who)!.get(path);
        expect(page.status, `${who} ${path}`).toBe(404);
        expect(page.text).not.toContain(B_TEXT);
      }
  });

  it("the team, keys and audit pages show tenant A's people, keys and events, never tenant B's", async () => {
    for (const who of INSIDERS) {
      const team = textOf((await browsers.get(who)!.get(t("/team"))).text);
      expect(team, who).toContain(w.users.viewer.email);
      expect(team, who).not.toContain(w.users.tenantBAdmin.email);
      expect(team, who).not.toContain("matrix.b@example.test");
    }
    for (const who of ADMINS) {
      expect(textOf((await browsers.get(who)!.get(t("/api-keys"))).text), who).toContain("Matrix 7");
      const audit = (await browsers.get(who)!.get(t("/audit?action=api_key.created"))).text;
      expect(textOf(audit), who).toContain("api_key.created");
      expect(audit, who).not.toContain(keyB);
      const csv = (await browsers.get(who)!.get(t("/audit/export?action=api_key.created"))).text;
      expect(csv.split("\r\n")[0], who).toMatch(/^id,occurredAt,tenantId,action,/);
      expect(csv, who).toContain(keysA[7] ?? "no key");
      expect(csv, who).not.toContain(keyB);
      expect(csv, who).not.toContain(w.tenantB.id);
    }
  });

  it("tenant B's person and key under tenant A's address are 404 for every admin of A", async () => {
    for (const who of ADMINS)
      for (const path of [
        ...["roles", "deactivate", "reactivate", "invite/resend", "invite/revoke"].map((f) =>
          t(`/team/${personB}/${f}`),
        ),
        t(`/api-keys/${keyB}/revoke`),
      ]) {
        const res = await browsers.get(who)!.post(path, { role: "viewer" });
        expect(res.status, `${who} ${path}`).toBe(404);
        expect(res.text).not.toContain(B_TEXT);
      }
    const b = w.as("tenantBAdmin");
    expect((await b.get(`/v1/users/${personB}`)).body).toMatchObject({ isActive: true, invitePending: true });
    expect((await b.get("/v1/api-keys")).body.data.map((k: { id: string }) => k.id)).toEqual([keyB]);
  });

  it("tenant B's webhook, rule, export and contact under tenant A's address are 404 for every admin of A", async () => {
    for (const who of ADMINS) {
      for (const path of [
        t(`/contacts/${contactB}`),
        t(`/webhooks/${hookB}`),
        t(`/automation/${ruleB}`),
        t(`/data-export/${exportB}`),
        t(`/data-export/${exportB}/status`),
        t(`/data-export/${exportB}/download`),
      ])
        expect((await browsers.get(who)!.get(path)).status, `${who} ${path}`).toBe(404);
      for (const path of [
        t(`/webhooks/${hookB}/test`),
        t(`/webhooks/${hookB}/rotate-secret`),
        t(`/webhooks/${hookB}/delete`),
        t(`/automation/${ruleB}/active`),
        t(`/automation/${ruleB}/delete`),
        t(`/contacts/${contactB}/suppress`),
      ])
        expect((await browsers.get(who)!.post(path, { isActive: "false" })).status, `${who} ${path}`).toBe(404);
    }
    const b = w.as("tenantBAdmin");
    expect((await b.get(`/v1/webhooks/${hookB}`)).body).toMatchObject({ isActive: true });
    expect((await b.get(`/v1/automation-rules/${ruleB}`)).body).toMatchObject({ isActive: true });
    expect((await b.get(`/v1/contacts/${contactB}`)).body).toMatchObject({ isSuppressed: false });
  });

  it("the reviews list and inbox show tenant A's review to its people", async () => {
    for (const who of INSIDERS)
      for (const path of [t("/reviews"), t("/inbox")])
        expect(textOf((await browsers.get(who)!.get(path)).text), `${who} ${path}`).toContain(A_TEXT);
  });

  it("signed out, every page goes to the sign-in page and back", async () => {
    for (const [pattern, path] of PAGES) {
      const page = await new ConsoleBrowser().get(path());
      expect(page.status, pattern).toBe(303);
      expect(page.location, pattern).toBe(`/?next=${encodeURIComponent(path())}`);
    }
  });
});

describe("every tenant form, for every role", () => {
  for (const [pattern, path, fields, allowed, answer] of FORMS) {
    it(`${pattern}: refused for roles below it and 404 for another tenant's, done for the rest`, async () => {
      // the refused first, so what the allowed do next starts from the fixture's state
      for (const who of OUTSIDERS) {
        const res = await browsers.get(who)!.post(path(who), { back: t(), ...fields() });
        expect(res.status, `${who} ${pattern}`).toBe(404);
        expect(res.text).not.toContain(A_TEXT);
      }
      const refused = INSIDERS.filter((who) => !allowed.includes(who));
      for (const who of refused) {
        const b = browsers.get(who)!;
        const landed = await b.follow(await b.post(path(who), { back: t(), ...fields() }));
        expect(textOf(landed.text), `${who} ${pattern}`).toMatch(/Your role here \([^)]+\) does not allow this\./);
      }
      for (const who of allowed) {
        const b = browsers.get(who)!;
        const res = await b.post(path(who), { back: t(), ...fields() });
        expect(res.status, `${who} ${pattern}`).toBe(answer ?? 303);
        const landed = await b.follow(res);
        expect(landed.status, `${who} ${pattern}`).toBe(200);
        expect(textOf(landed.text), `${who} ${pattern}`).not.toContain("does not allow this");
      }
    });
  }

  it("a form post without the session's CSRF token is refused for every role", async () => {
    for (const who of INSIDERS) {
      const res = await browsers
        .get(who)!
        .post(t(`/inbox/${reviewA}/note`), { type: "review", note: "x" }, { csrf: "" });
      expect(res.status, who).toBe(403);
    }
  });
});

it("the tenant switcher shows each person only the tenants they reach", async () => {
  const outside = textOf((await browsers.get("tenantBAdmin")!.get("/app/tenants")).text);
  expect(outside).toContain(w.tenantB.name);
  expect(outside).not.toContain(w.tenantA.name);
  const agency = textOf((await browsers.get("agencyAdmin")!.get("/app/tenants")).text);
  expect(agency).toContain(w.tenantA.name);
  expect(agency).not.toContain(w.tenantB.name);
});

/** The confirm page of an assistant's call (GET) and its form (POST): who may see and use it depends on the call. */
const CONFIRM = "/app/t/:tenantId/confirm/:confirmationId";

describe("the confirm page of an assistant's call, for every role", () => {
  const newContact = async (email: string) => (await w.as("manager").post("/v1/contacts", { email })).body.id as string;
  /** contact.suppress over MCP without elicitation: the refusal's link (its path) and a retry of the same call */
  async function askedBy(token: string, email: string) {
    const contactId = await newContact(email);
    const call = () => statelessCall(token, "contact.suppress", { contactId, reason: "matrix" }).then((r) => r.result);
    const link = confirmationLink(await call());
    expect(link).toMatch(/\/confirm\//);
    return { path: new URL(link!).pathname, retry: call, email };
  }

  it(`${CONFIRM}: an API key's call is for managers and up (403 below), 404 for another tenant's people`, async () => {
    const key = (
      await w.as("tenantAdmin").post("/v1/api-keys", { name: "matrix", scopes: ["read:contacts", "write:contacts"] })
    ).body.key as string;
    const ask = await askedBy(key, "matrix-key@example.com");
    for (const who of INSIDERS) {
      const page = await browsers.get(who)!.get(ask.path);
      expect(page.status, who).toBe(APPROVERS.includes(who) ? 200 : 403);
      if (page.status === 200) expect(textOf(page.text), who).toContain(ask.email);
      else expect(page.text, who).not.toContain(ask.email);
      expect(page.text).not.toContain(w.tenantB.name);
    }
    for (const who of OUTSIDERS) {
      const page = await browsers.get(who)!.get(ask.path);
      expect(page.status, who).toBe(404);
      expect(page.text, who).not.toContain(ask.email);
      expect(page.text).not.toContain(w.tenantA.name);
    }
    // the form: refused below manager and for outsiders, and the call still does not run
    for (const who of [...INSIDERS.filter((x) => !APPROVERS.includes(x)), ...OUTSIDERS]) {
      const res = await browsers.get(who)!.post(ask.path, { decision: "confirm" });
      expect(res.status, who).toBe(OUTSIDERS.includes(who as never) ? 404 : 403);
    }
    expect((await ask.retry()).isError).toBe(true);
    for (const who of APPROVERS) {
      const again = await askedBy(key, `matrix-key-${who.toLowerCase()}@example.com`);
      expect((await browsers.get(who)!.post(again.path, { decision: "confirm" })).status, who).toBe(303);
      expect((await again.retry()).structuredContent, who).toMatchObject({ isSuppressed: true });
    }
  });

  it(`${CONFIRM}: a person's own call (their session) is for that person only`, async () => {
    const ask = await askedBy(w.users.tenantUser.token, "matrix-own@example.com");
    for (const who of INSIDERS) {
      const page = await browsers.get(who)!.get(ask.path);
      expect(page.status, who).toBe(who === "tenantUser" ? 200 : 403);
    }
    for (const who of OUTSIDERS) expect((await browsers.get(who)!.get(ask.path)).status, who).toBe(404);
    for (const who of INSIDERS.filter((x) => x !== "tenantUser"))
      expect((await browsers.get(who)!.post(ask.path, { decision: "confirm" })).status, who).toBe(403);
    expect((await ask.retry()).isError).toBe(true);
    expect((await browsers.get("tenantUser")!.post(ask.path, { decision: "confirm" })).status).toBe(303);
    expect((await ask.retry()).structuredContent).toMatchObject({ isSuppressed: true });
  });

  it(`${CONFIRM}: signed out, the page goes to the sign-in page and back`, async () => {
    const path = `/app/t/${w.tenantA.id}/confirm/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
    const page = await new ConsoleBrowser().get(path);
    expect(page.status).toBe(303);
    expect(page.location).toBe(`/?next=${encodeURIComponent(path)}`);
  });
});

it("PAGES, FORMS and CONFIRM enumerate every tenant route of the console", () => {
  const routes = consoleRoutes.routes
    .filter((r) => r.path.startsWith("/app/t/:tenantId") && (r.method === "GET" || r.method === "POST"))
    .map((r) => `${r.method} ${r.path}`);
  const listed = [
    ...PAGES.map(([p]) => `GET ${p}`),
    ...FORMS.map(([p]) => `POST ${p}`),
    `GET ${CONFIRM}`,
    `POST ${CONFIRM}`,
  ];
  expect(new Set(routes)).toEqual(new Set(listed));
});
