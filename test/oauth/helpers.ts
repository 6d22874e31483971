import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { TEST_PASSWORD } from "../helpers/seed";
import { MCP_URL, workerFetch } from "../mcp/helpers";

export const REDIRECT = "http://localhost:33418/callback";

/** An in-memory OAuth client, as a desktop MCP client keeps one; the "browser" is the test. */
export class MemoryOAuthClient implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  constructor(readonly name = "Test Desktop Client") {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const hidden = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]+)"`)
    .exec(html)?.[1]
    ?.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));

export interface ConsentChoice {
  email: string;
  password?: string;
  tenantId: string;
  scopes?: string[];
  agency?: boolean;
  decision?: "approve" | "deny";
}

/**
 * Plays the browser on the consent page: GET the authorize URL, sign in, choose, submit. Returns
 * the redirect back to the client (with ?code= or ?error=) and the pages seen on the way.
 */
export async function consentInBrowser(authorizationUrl: URL, choice: ConsentChoice) {
  const page = await workerFetch(authorizationUrl);
  const signInHtml = await page.text();
  if (page.status !== 200) throw new Error(`authorize page ${page.status}: ${signInHtml}`);
  const cookie = (page.headers as unknown as { getSetCookie(): string[] })
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const handle = hidden(signInHtml, "handle")!;
  const post = (fields: [string, string][]) =>
    workerFetch(authorizationUrl, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });

  const signedIn = await post([
    ["handle", handle],
    ["step", "signin"],
    ["email", choice.email],
    ["password", choice.password ?? TEST_PASSWORD],
  ]);
  const consentHtml = await signedIn.text();
  if (signedIn.status !== 200)
    return { signInHtml, consentHtml, status: signedIn.status, location: null as URL | null };
  const ticket = hidden(consentHtml, "ticket")!;
  const fields: [string, string][] = [
    ["handle", handle],
    ["ticket", ticket],
    ["step", "consent"],
    ["tenant", choice.tenantId],
    ["decision", choice.decision ?? "approve"],
  ];
  for (const s of choice.scopes ?? ["read:locations"]) fields.push(["scope", s]);
  if (choice.agency) fields.push(["agency", "on"]);
  const done = await post(fields);
  const location = done.headers.get("location");
  return {
    signInHtml,
    consentHtml,
    status: done.status,
    location: location ? new URL(location) : null,
    body: location ? "" : await done.text(),
  };
}

/**
 * The SDK's own OAuth client: authorize `scope` for `email` on `tenantId` at `serverUrl` (whose metadata
 * names the resource the token is bound to), play the browser, exchange the code.
 */
export async function authorizeWithConsent(
  provider: MemoryOAuthClient,
  scope: string,
  who: { email: string; tenantId: string },
  serverUrl = MCP_URL,
) {
  if ((await auth(provider, { serverUrl, scope, fetchFn: workerFetch })) !== "REDIRECT")
    throw new Error("expected a redirect to the consent page");
  const consent = await consentInBrowser(provider.authorizationUrl!, {
    email: who.email,
    tenantId: who.tenantId,
    scopes: scope.split(" "),
  });
  if (consent.status !== 302) throw new Error(`consent answered ${consent.status}`);
  const code = consent.location!.searchParams.get("code")!;
  if ((await auth(provider, { serverUrl, authorizationCode: code, fetchFn: workerFetch })) !== "AUTHORIZED")
    throw new Error("code exchange failed");
  return provider.saved!.access_token;
}
