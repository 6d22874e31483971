import { Hono } from "hono";
import type { AppEnv } from "../../app-env";
import { controlSession } from "../../middleware/control-session";
import { CONFIRM_PAGE_PATTERN } from "../mcp/confirm-in-browser";
import { assetResponse } from "./assets";
import { consoleErrors, notFoundPage } from "./errors";
import { consoleHeaders, inTenant, sameOriginPosts, signedIn } from "./guards";
import { apiKeysPage, mintKeySubmit, revokeKeySubmit } from "./pages/api-keys";
import { approvalsPage } from "./pages/approvals";
import { auditExport, auditPage } from "./pages/audit";
import { confirmPage, confirmSubmit } from "./pages/confirm";
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
import { mePage, passwordSubmit, renameSubmit } from "./pages/me";
import {
  approveReplySubmit,
  createReplySubmit,
  editReplySubmit,
  publishReplySubmit,
  rejectReplySubmit,
  submitReplySubmit,
} from "./pages/replies";
import { reviewPage, reviewsPage } from "./pages/reviews";
import { settingsPage } from "./pages/settings";
import {
  deactivateSubmit,
  inviteSubmit,
  reactivateSubmit,
  resendInviteSubmit,
  revokeInviteSubmit,
  rolesSubmit,
  teamPage,
} from "./pages/team";
import { appEntry, tenantsPage } from "./pages/tenants";
import { signedOutRoutes, signOutRoutes } from "./sign-in.routes";
import { ssoRoutes } from "./sso.routes";

/*
 * The web console (docs/console.md, decisions.md "The console"): `/` opens it, its pages live under `/app`,
 * and the addresses already mailed (`/setup-password`, `/reset-password`, `/sso/complete`) are its pages.
 * Registration order is the pipeline (guards.ts): headers and the origin check for every console path; the
 * signed-out pages and the assets; then the signed-in pages; then the tenant's pages behind the tenant fence.
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

consoleRoutes.use("/app", signedIn);
consoleRoutes.use("/app/*", signedIn);
consoleRoutes.route("/", signOutRoutes);
consoleRoutes.get("/app", appEntry);
consoleRoutes.get("/app/tenants", tenantsPage);
consoleRoutes.get("/app/me", mePage);
consoleRoutes.post("/app/me/name", renameSubmit);
consoleRoutes.post("/app/me/password", passwordSubmit);

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
consoleRoutes.get("/app/t/:tenantId/audit", auditPage);
consoleRoutes.get("/app/t/:tenantId/audit/export", auditExport);
// an MCP call confirmed in the browser (mcp/confirm-in-browser.ts builds these addresses)
consoleRoutes.get(CONFIRM_PAGE_PATTERN, confirmPage);
consoleRoutes.post(CONFIRM_PAGE_PATTERN, confirmSubmit);

consoleRoutes.all("/app/*", notFoundPage);
