import type { SiteAttention } from "./types";

/**
 * Graph API errors that no retry fixes (https://developers.facebook.com/docs/graph-api/guides/error-handling,
 * https://developers.facebook.com/docs/graph-api/changelog/version22.0): the connection needs a person.
 */
export interface GraphErrorBody {
  error?: { message?: string; type?: string; code?: number; error_subcode?: number; fbtrace_id?: string };
}

export function graphAttention(body: GraphErrorBody | undefined): SiteAttention | null {
  const e = body?.error;
  if (!e || typeof e.code !== "number") return null;
  const said = `Graph error ${e.code}${e.error_subcode ? `/${e.error_subcode}` : ""}: ${e.message ?? ""}`.trim();
  // 12: "deprecated for versions v22.0 and higher" (page ratings' recommendation fields); 2500 and 3: the edge or method is gone
  if (e.code === 12 || e.code === 3)
    return {
      code: "facebook_api_deprecated",
      message: `Facebook retired this API for this Graph version; the connection cannot read reviews until it is updated (${said})`,
    };
  if (e.code === 190 || e.code === 102)
    return {
      code: "token_invalid",
      message: `The page access token is expired or revoked; reconnect the page (${said})`,
    };
  if (e.code === 10 || (e.code >= 200 && e.code <= 299))
    return {
      code: "permission_missing",
      message: `The token lacks a permission this needs (pages_read_user_content, business verification) (${said})`,
    };
  return null;
}
