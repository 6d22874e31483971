import { Hono } from "hono";
import type { AppEnv } from "../../app-env";
import { controlSession } from "../../middleware/control-session";
import { CONFIRM_PAGE_PATTERN } from "../mcp/confirm-in-browser";
import { assetResponse } from "./assets";
import { consoleErrors, notFoundPage } from "./errors";
import { consoleHeaders, forAgencyAdmins, forPlatformAdmins, inTenant, sameOriginPosts, signedIn } from "./guards";
import { addBusinessSubmit, agencyPage } from "./pages/agency";
import {
  agencyAddHostnameSubmit,
  agencyBrandSubmit,
  agencyDeleteHostnameSubmit,
  agencyLogoSubmit,
  agencyRefreshHostnameSubmit,
  agencyResetSubmit,
  agencyWhiteLabelPage,
} from "./pages/agency-white-label";
import { alertPage, alertsPage, createAlertSubmit, deleteAlertSubmit, updateAlertSubmit } from "./pages/alerts";
import { apiKeysPage, mintKeySubmit, revokeKeySubmit } from "./pages/api-keys";
import { approvalsPage } from "./pages/approvals";
import { auditExport, auditPage } from "./pages/audit";
import {
  automationPage,
  automationRulePage,
  createRuleSubmit,
  deleteRuleSubmit,
  ruleActiveSubmit,
} from "./pages/automation";
import {
  bindTemplateSubmit,
  campaignActiveSubmit,
  campaignPage,
  sendCampaignSubmit,
  unbindTemplateSubmit,
} from "./pages/campaign";
import { campaignProgress } from "./pages/campaign-progress";
import { campaignsPage, createCampaignSubmit } from "./pages/campaigns";
import { compliancePage, complianceSubmit } from "./pages/compliance";
import { confirmPage, confirmSubmit } from "./pages/confirm";
import { CONNECTED_APPS, connectedAppsPage, revokeAppSubmit } from "./pages/connected-apps";
import {
  contactPage,
  eraseSubmit,
  grantConsentSubmit,
  revokeConsentSubmit,
  suppressSubmit,
  unsuppressSubmit,
} from "./pages/contact";
import { addContactSubmit, contactsPage } from "./pages/contacts";
import {
  importBodyLimit,
  importErrorsCsv,
  importJobPage,
  importPage,
  importStatus,
  importSubmit,
} from "./pages/contacts-import";
import { dataExportPage, exportDownload, exportPage, exportStatus, startExportSubmit } from "./pages/data-export";
import {
  completeExperimentSubmit,
  createExperimentSubmit,
  experimentPage,
  experimentsPage,
  pauseExperimentSubmit,
  resumeExperimentSubmit,
  startExperimentSubmit,
} from "./pages/experiments";
import { homePage } from "./pages/home";
import {
  assignSubmit,
  inboxFresh,
  inboxItemPage,
  inboxPage,
  noteSubmit,
  statusSubmit,
  tagsSubmit,
} from "./pages/inbox";
import {
  connectSubmit,
  deleteIntegrationSubmit,
  integrationsPage,
  testIntegrationSubmit,
  updateIntegrationSubmit,
} from "./pages/integrations";
import { createLocationSubmit, locationPage, locationsPage, updateLocationSubmit } from "./pages/locations";
import { mePage, passwordSubmit, renameSubmit } from "./pages/me";
import {
  emailSubmit,
  messagingPage,
  smsSubmit,
  testSendSubmit,
  verifyDomainSubmit,
  whatsappSubmit,
} from "./pages/messaging";
import { deadLettersPage, platformStatusPage, platformTenantsPage, replaySubmit } from "./pages/platform";
import {
  approveReplySubmit,
  createReplySubmit,
  editReplySubmit,
  publishReplySubmit,
  rejectReplySubmit,
  submitReplySubmit,
} from "./pages/replies";
import { requestsPage } from "./pages/requests";
import {
  createReviewLinkSubmit,
  deleteReviewLinkSubmit,
  reviewLinkPage,
  reviewLinksPage,
  updateReviewLinkSubmit,
} from "./pages/review-links";
import { reviewPage, reviewsPage } from "./pages/reviews";
import { deleteSequenceSubmit, sequenceSubmit } from "./pages/sequence";
import { settingsPage } from "./pages/settings";
import { solicitationsPage } from "./pages/solicitations";
import { ssoEnabledSubmit, ssoMetadataSubmit, ssoSettingsPage, ssoSettingsSubmit } from "./pages/sso";
import {
  deactivateSubmit,
  inviteSubmit,
  reactivateSubmit,
  resendInviteSubmit,
  revokeInviteSubmit,
  rolesSubmit,
  teamPage,
} from "./pages/team";
import {
  approveTemplateSubmit,
  archiveTemplateSubmit,
  editTemplateSubmit,
  forkTemplateSubmit,
  previewTemplateSubmit,
  templatePage,
} from "./pages/template";
import { createTemplateSubmit, templatesPage } from "./pages/templates";
import { appEntry, tenantsPage } from "./pages/tenants";
import {
  deleteWebhookSubmit,
  editWebhookSubmit,
  redeliverSubmit,
  rotateSecretSubmit,
  subscribeSubmit,
  testWebhookSubmit,
  webhookPage,
  webhooksPage,
} from "./pages/webhooks";
import {
  addHostnameSubmit,
  brandSubmit,
  deleteHostnameSubmit,
  logoBodyLimit,
  logoSubmit,
  refreshHostnameSubmit,
  resetSubmit,
  whiteLabelPage,
} from "./pages/white-label";
import { createWidgetSubmit, deleteWidgetSubmit, updateWidgetSubmit, widgetPage, widgetsPage } from "./pages/widgets";
import { signedOutRoutes, signOutRoutes } from "./sign-in.routes";
import { ssoRoutes } from "./sso.routes";

/*
 * The web console (docs/console.md, decisions.md "The console"): `/` opens it, its pages live under `/app`,
 * and the addresses already mailed (`/setup-password`, `/reset-password`, `/sso/complete`) are its pages.
 * Registration order is the pipeline (guards.ts): headers and the origin check for every console path; the
 * signed-out pages and the assets; then the signed-in pages; the agency's and the platform's pages behind their
 * REST twins' checks; then the tenant's pages behind the tenant fence.
 */

const PATHS = ["/", "/app", "/app/*", "/reset-password", "/setup-password", "/sso/complete"];

/** A console page's path (HTML, outside the OpenAPI document; test/console/matrix.test.ts enumerates them). */
export const isConsolePath = (path: string) =>
  PATHS.some((p) => (p.endsWith("/*") ? path.startsWith(p.slice(0, -1)) : path === p));

export const consoleRoutes = new Hono<AppEnv>();
consoleRoutes.onError(consoleErrors);
for (const path of PATHS) consoleRoutes.use(path, controlSession, consoleHeaders, sameOriginPosts);

consoleRoutes.get("/app/assets/:file", (c) => assetResponse(c.req.path));
consoleRoutes.route("/", signedOutRoutes);
consoleRoutes.route("/", ssoRoutes);
// an import's upload is refused over REST's limit before the pipeline reads the form (its CSRF token)
consoleRoutes.use("/app/t/:tenantId/contacts/import", importBodyLimit);
consoleRoutes.use("/app/t/:tenantId/white-label/logo", logoBodyLimit);
consoleRoutes.use("/app/agency/:agencyId/white-label/logo", logoBodyLimit);

consoleRoutes.use("/app", signedIn);
consoleRoutes.use("/app/*", signedIn);
consoleRoutes.route("/", signOutRoutes);
consoleRoutes.get("/app", appEntry);
consoleRoutes.get("/app/tenants", tenantsPage);
consoleRoutes.get("/app/me", mePage);
consoleRoutes.post("/app/me/name", renameSubmit);
consoleRoutes.post("/app/me/password", passwordSubmit);
consoleRoutes.get(CONNECTED_APPS, connectedAppsPage);
consoleRoutes.post(`${CONNECTED_APPS}/:grantId/revoke`, revokeAppSubmit);

consoleRoutes.use("/app/agency", forAgencyAdmins);
consoleRoutes.use("/app/agency/*", forAgencyAdmins);
consoleRoutes.get("/app/agency", agencyPage);
consoleRoutes.post("/app/agency/tenants", addBusinessSubmit);
const AGENCY_WL = "/app/agency/:agencyId/white-label";
consoleRoutes.get(AGENCY_WL, agencyWhiteLabelPage);
consoleRoutes.post(AGENCY_WL, agencyBrandSubmit);
consoleRoutes.post(`${AGENCY_WL}/logo`, agencyLogoSubmit);
consoleRoutes.post(`${AGENCY_WL}/reset`, agencyResetSubmit);
consoleRoutes.post(`${AGENCY_WL}/hostnames`, agencyAddHostnameSubmit);
consoleRoutes.post(`${AGENCY_WL}/hostnames/:hostnameId/refresh`, agencyRefreshHostnameSubmit);
consoleRoutes.post(`${AGENCY_WL}/hostnames/:hostnameId/delete`, agencyDeleteHostnameSubmit);
consoleRoutes.use("/app/platform", forPlatformAdmins);
consoleRoutes.use("/app/platform/*", forPlatformAdmins);
consoleRoutes.get("/app/platform", platformStatusPage);
consoleRoutes.get("/app/platform/tenants", platformTenantsPage);
consoleRoutes.get("/app/platform/dead-letters", deadLettersPage);
consoleRoutes.post("/app/platform/dead-letters/:deadLetterId/replay", replaySubmit);

consoleRoutes.use("/app/t/:tenantId", inTenant);
consoleRoutes.use("/app/t/:tenantId/*", inTenant);
consoleRoutes.get("/app/t/:tenantId", homePage);
consoleRoutes.get("/app/t/:tenantId/inbox", inboxPage);
consoleRoutes.get("/app/t/:tenantId/inbox/fresh", inboxFresh);
consoleRoutes.get("/app/t/:tenantId/inbox/:itemId", inboxItemPage);
consoleRoutes.post("/app/t/:tenantId/inbox/:itemId/assign", assignSubmit);
consoleRoutes.post("/app/t/:tenantId/inbox/:itemId/tags", tagsSubmit);
consoleRoutes.post("/app/t/:tenantId/inbox/:itemId/status", statusSubmit);
consoleRoutes.post("/app/t/:tenantId/inbox/:itemId/note", noteSubmit);
consoleRoutes.get("/app/t/:tenantId/approvals", approvalsPage);
consoleRoutes.get("/app/t/:tenantId/reviews", reviewsPage);
consoleRoutes.get("/app/t/:tenantId/reviews/:reviewId", reviewPage);
consoleRoutes.post("/app/t/:tenantId/reviews/:reviewId/replies", createReplySubmit);
consoleRoutes.post("/app/t/:tenantId/replies/:replyId/edit", editReplySubmit);
consoleRoutes.post("/app/t/:tenantId/replies/:replyId/submit", submitReplySubmit);
consoleRoutes.post("/app/t/:tenantId/replies/:replyId/approve", approveReplySubmit);
consoleRoutes.post("/app/t/:tenantId/replies/:replyId/reject", rejectReplySubmit);
consoleRoutes.post("/app/t/:tenantId/replies/:replyId/publish", publishReplySubmit);
consoleRoutes.get("/app/t/:tenantId/requests", requestsPage);
consoleRoutes.get("/app/t/:tenantId/campaigns", campaignsPage);
consoleRoutes.post("/app/t/:tenantId/campaigns", createCampaignSubmit);
consoleRoutes.get("/app/t/:tenantId/campaigns/:campaignId", campaignPage);
consoleRoutes.get("/app/t/:tenantId/campaigns/:campaignId/progress", campaignProgress);
consoleRoutes.post("/app/t/:tenantId/campaigns/:campaignId/send", sendCampaignSubmit);
consoleRoutes.post("/app/t/:tenantId/campaigns/:campaignId/active", campaignActiveSubmit);
consoleRoutes.post("/app/t/:tenantId/campaigns/:campaignId/templates", bindTemplateSubmit);
consoleRoutes.post("/app/t/:tenantId/campaigns/:campaignId/templates/:bindingId/delete", unbindTemplateSubmit);
consoleRoutes.post("/app/t/:tenantId/campaigns/:campaignId/sequence", sequenceSubmit);
consoleRoutes.post("/app/t/:tenantId/campaigns/:campaignId/sequence/delete", deleteSequenceSubmit);
consoleRoutes.get("/app/t/:tenantId/templates", templatesPage);
consoleRoutes.post("/app/t/:tenantId/templates", createTemplateSubmit);
consoleRoutes.get("/app/t/:tenantId/templates/:templateId", templatePage);
consoleRoutes.post("/app/t/:tenantId/templates/:templateId/edit", editTemplateSubmit);
consoleRoutes.post("/app/t/:tenantId/templates/:templateId/preview", previewTemplateSubmit);
consoleRoutes.post("/app/t/:tenantId/templates/:templateId/version", forkTemplateSubmit);
consoleRoutes.post("/app/t/:tenantId/templates/:templateId/approve", approveTemplateSubmit);
consoleRoutes.post("/app/t/:tenantId/templates/:templateId/archive", archiveTemplateSubmit);
consoleRoutes.get("/app/t/:tenantId/experiments", experimentsPage);
consoleRoutes.post("/app/t/:tenantId/experiments", createExperimentSubmit);
consoleRoutes.get("/app/t/:tenantId/experiments/:experimentId", experimentPage);
consoleRoutes.post("/app/t/:tenantId/experiments/:experimentId/start", startExperimentSubmit);
consoleRoutes.post("/app/t/:tenantId/experiments/:experimentId/pause", pauseExperimentSubmit);
consoleRoutes.post("/app/t/:tenantId/experiments/:experimentId/resume", resumeExperimentSubmit);
consoleRoutes.post("/app/t/:tenantId/experiments/:experimentId/complete", completeExperimentSubmit);
consoleRoutes.get("/app/t/:tenantId/solicitations", solicitationsPage);
consoleRoutes.get("/app/t/:tenantId/contacts", contactsPage);
consoleRoutes.post("/app/t/:tenantId/contacts", addContactSubmit);
// the import's pages before a contact's (`import` is not a contact id)
consoleRoutes.get("/app/t/:tenantId/contacts/import", importPage);
consoleRoutes.post("/app/t/:tenantId/contacts/import", importSubmit);
consoleRoutes.get("/app/t/:tenantId/contacts/import/:jobId", importJobPage);
consoleRoutes.get("/app/t/:tenantId/contacts/import/:jobId/status", importStatus);
consoleRoutes.get("/app/t/:tenantId/contacts/import/:jobId/errors", importErrorsCsv);
consoleRoutes.get("/app/t/:tenantId/contacts/:contactId", contactPage);
consoleRoutes.post("/app/t/:tenantId/contacts/:contactId/suppress", suppressSubmit);
consoleRoutes.post("/app/t/:tenantId/contacts/:contactId/unsuppress", unsuppressSubmit);
consoleRoutes.post("/app/t/:tenantId/contacts/:contactId/consent", grantConsentSubmit);
consoleRoutes.post("/app/t/:tenantId/contacts/:contactId/consent/:channel/revoke", revokeConsentSubmit);
consoleRoutes.post("/app/t/:tenantId/contacts/:contactId/erase", eraseSubmit);
consoleRoutes.get("/app/t/:tenantId/settings", settingsPage);
consoleRoutes.get("/app/t/:tenantId/team", teamPage);
consoleRoutes.post("/app/t/:tenantId/team/invite", inviteSubmit);
consoleRoutes.post("/app/t/:tenantId/team/:userId/roles", rolesSubmit);
consoleRoutes.post("/app/t/:tenantId/team/:userId/deactivate", deactivateSubmit);
consoleRoutes.post("/app/t/:tenantId/team/:userId/reactivate", reactivateSubmit);
consoleRoutes.post("/app/t/:tenantId/team/:userId/invite/resend", resendInviteSubmit);
consoleRoutes.post("/app/t/:tenantId/team/:userId/invite/revoke", revokeInviteSubmit);
consoleRoutes.get("/app/t/:tenantId/api-keys", apiKeysPage);
consoleRoutes.post("/app/t/:tenantId/api-keys", mintKeySubmit);
consoleRoutes.post("/app/t/:tenantId/api-keys/:keyId/revoke", revokeKeySubmit);
consoleRoutes.get("/app/t/:tenantId/sso", ssoSettingsPage);
consoleRoutes.post("/app/t/:tenantId/sso", ssoSettingsSubmit);
consoleRoutes.post("/app/t/:tenantId/sso/metadata", ssoMetadataSubmit);
consoleRoutes.post("/app/t/:tenantId/sso/enabled", ssoEnabledSubmit);
consoleRoutes.get("/app/t/:tenantId/audit", auditPage);
consoleRoutes.get("/app/t/:tenantId/audit/export", auditExport);
consoleRoutes.get("/app/t/:tenantId/white-label", whiteLabelPage);
consoleRoutes.post("/app/t/:tenantId/white-label", brandSubmit);
consoleRoutes.post("/app/t/:tenantId/white-label/logo", logoSubmit);
consoleRoutes.post("/app/t/:tenantId/white-label/reset", resetSubmit);
consoleRoutes.post("/app/t/:tenantId/white-label/hostnames", addHostnameSubmit);
consoleRoutes.post("/app/t/:tenantId/white-label/hostnames/:hostnameId/refresh", refreshHostnameSubmit);
consoleRoutes.post("/app/t/:tenantId/white-label/hostnames/:hostnameId/delete", deleteHostnameSubmit);
consoleRoutes.get("/app/t/:tenantId/webhooks", webhooksPage);
consoleRoutes.post("/app/t/:tenantId/webhooks", subscribeSubmit);
consoleRoutes.get("/app/t/:tenantId/webhooks/:webhookId", webhookPage);
consoleRoutes.post("/app/t/:tenantId/webhooks/:webhookId/edit", editWebhookSubmit);
consoleRoutes.post("/app/t/:tenantId/webhooks/:webhookId/test", testWebhookSubmit);
consoleRoutes.post("/app/t/:tenantId/webhooks/:webhookId/rotate-secret", rotateSecretSubmit);
consoleRoutes.post("/app/t/:tenantId/webhooks/:webhookId/delete", deleteWebhookSubmit);
consoleRoutes.post("/app/t/:tenantId/webhooks/:webhookId/deliveries/:deliveryId/redeliver", redeliverSubmit);
consoleRoutes.get("/app/t/:tenantId/automation", automationPage);
consoleRoutes.post("/app/t/:tenantId/automation", createRuleSubmit);
consoleRoutes.get("/app/t/:tenantId/automation/:ruleId", automationRulePage);
consoleRoutes.post("/app/t/:tenantId/automation/:ruleId/active", ruleActiveSubmit);
consoleRoutes.post("/app/t/:tenantId/automation/:ruleId/delete", deleteRuleSubmit);
consoleRoutes.get("/app/t/:tenantId/data-export", dataExportPage);
consoleRoutes.post("/app/t/:tenantId/data-export", startExportSubmit);
consoleRoutes.get("/app/t/:tenantId/data-export/:exportId", exportPage);
consoleRoutes.get("/app/t/:tenantId/data-export/:exportId/status", exportStatus);
consoleRoutes.get("/app/t/:tenantId/data-export/:exportId/download", exportDownload);
consoleRoutes.get("/app/t/:tenantId/locations", locationsPage);
consoleRoutes.post("/app/t/:tenantId/locations", createLocationSubmit);
consoleRoutes.get("/app/t/:tenantId/locations/:locationId", locationPage);
consoleRoutes.post("/app/t/:tenantId/locations/:locationId", updateLocationSubmit);
consoleRoutes.get("/app/t/:tenantId/integrations", integrationsPage);
consoleRoutes.post("/app/t/:tenantId/integrations", connectSubmit);
consoleRoutes.post("/app/t/:tenantId/integrations/:integrationId", updateIntegrationSubmit);
consoleRoutes.post("/app/t/:tenantId/integrations/:integrationId/test", testIntegrationSubmit);
consoleRoutes.post("/app/t/:tenantId/integrations/:integrationId/delete", deleteIntegrationSubmit);
consoleRoutes.get("/app/t/:tenantId/messaging", messagingPage);
consoleRoutes.post("/app/t/:tenantId/messaging/email", emailSubmit);
consoleRoutes.post("/app/t/:tenantId/messaging/email/verify-domain", verifyDomainSubmit);
consoleRoutes.post("/app/t/:tenantId/messaging/sms", smsSubmit);
consoleRoutes.post("/app/t/:tenantId/messaging/whatsapp", whatsappSubmit);
consoleRoutes.post("/app/t/:tenantId/messaging/test", testSendSubmit);
consoleRoutes.get("/app/t/:tenantId/review-links", reviewLinksPage);
consoleRoutes.post("/app/t/:tenantId/review-links", createReviewLinkSubmit);
consoleRoutes.get("/app/t/:tenantId/review-links/:linkId", reviewLinkPage);
consoleRoutes.post("/app/t/:tenantId/review-links/:linkId", updateReviewLinkSubmit);
consoleRoutes.post("/app/t/:tenantId/review-links/:linkId/delete", deleteReviewLinkSubmit);
consoleRoutes.get("/app/t/:tenantId/widgets", widgetsPage);
consoleRoutes.post("/app/t/:tenantId/widgets", createWidgetSubmit);
consoleRoutes.get("/app/t/:tenantId/widgets/:widgetId", widgetPage);
consoleRoutes.post("/app/t/:tenantId/widgets/:widgetId", updateWidgetSubmit);
consoleRoutes.post("/app/t/:tenantId/widgets/:widgetId/delete", deleteWidgetSubmit);
consoleRoutes.get("/app/t/:tenantId/compliance", compliancePage);
consoleRoutes.post("/app/t/:tenantId/compliance", complianceSubmit);
consoleRoutes.get("/app/t/:tenantId/alerts", alertsPage);
consoleRoutes.post("/app/t/:tenantId/alerts", createAlertSubmit);
consoleRoutes.get("/app/t/:tenantId/alerts/:subscriptionId", alertPage);
consoleRoutes.post("/app/t/:tenantId/alerts/:subscriptionId", updateAlertSubmit);
consoleRoutes.post("/app/t/:tenantId/alerts/:subscriptionId/delete", deleteAlertSubmit);
// an MCP call confirmed in the browser (mcp/confirm-in-browser.ts builds these addresses)
consoleRoutes.get(CONFIRM_PAGE_PATTERN, confirmPage);
consoleRoutes.post(CONFIRM_PAGE_PATTERN, confirmSubmit);

consoleRoutes.all("/app/*", notFoundPage);
