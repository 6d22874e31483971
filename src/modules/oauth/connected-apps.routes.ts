import { createRouter, type Router } from "../../lib/openapi";

/**
 * /account/connected-apps, the address of the connected-apps page before the console had it (docs/console.md,
 * "Connected apps"): mails sent before, bookmarks and MCP clients' help texts still name it, so it answers a
 * permanent redirect to the console's page, on the same host (its brand). The console signs the person in first
 * (password or SAML) and lists and disconnects the grants with the same services as GET and DELETE
 * /me/oauth-grants. The REST twin stays /me/oauth-grants (oauth/operations.ts).
 */
export const CONNECTED_APPS_PATH = "/account/connected-apps";
const CONSOLE_CONNECTED_APPS = "/app/connected-apps";

export const connectedAppsRoutes: Router = createRouter();
connectedAppsRoutes.get(CONNECTED_APPS_PATH, (c) => c.redirect(CONSOLE_CONNECTED_APPS, 301));
