import { type Call, jsonResponse, standIn } from "./helpers";

/**
 * Stand-ins for review-site APIs that speak their published rules (sources in docs/reviews.md,
 * "Providers' rules"): status codes, error bodies and quotas as the sites document them.
 */

/**
 * Graph API page ratings. From v22.0 the ratings edge's recommendation fields are deprecated: asking
 * for them answers 400 with Graph error code 12. A token that is not `token` is error 190.
 */
export function graphStandIn(o: { token: string; ratings?: unknown[] }) {
  return standIn((call: Call) => {
    const m = /^\/(v\d+\.\d+)\/([^/]+)\/ratings$/.exec(call.url.pathname);
    if (!m)
      return jsonResponse({ error: { message: "Unknown path components", type: "OAuthException", code: 2500 } }, 400);
    if (call.headers.get("authorization") !== `Bearer ${o.token}`) {
      return jsonResponse(
        {
          error: {
            message: "Error validating access token: Session has expired.",
            type: "OAuthException",
            code: 190,
            error_subcode: 463,
            fbtrace_id: "A1",
          },
        },
        401,
      );
    }
    const major = Number(m[1]!.slice(1).split(".")[0]);
    if (major >= 22 && (call.url.searchParams.get("fields") ?? "").includes("recommendation_type")) {
      return jsonResponse(
        {
          error: {
            message: "(#12) recommendation_type field is deprecated for versions v22.0 and higher",
            type: "OAuthException",
            code: 12,
            fbtrace_id: "A2",
          },
        },
        400,
      );
    }
    return jsonResponse({ data: o.ratings ?? [] });
  });
}

/**
 * Yelp's partner Respond to Reviews API: POST /reviews/v1/{review_id} {response_text, response_type}.
 * Errors as documented: {error: {id, description, http_code}}; R2R_COMMENTS_NOT_ALLOWED when the
 * location lacks the feature, R2R_INVALID_RESPONSE_TEXT over 5,000 characters, R2R_COMMENT_QUOTA_EXCEEDED
 * after 20 comments per location per owner per day.
 */
export function yelpR2RStandIn(o: { token: string; enabled: boolean; perDay?: number }) {
  let today = 0;
  const r2rError = (id: string, description: string, status = 400) =>
    jsonResponse(
      { error: { id, description, http_code: status === 401 ? "HTTPUnauthorized" : "HTTPBadRequest" } },
      status,
    );
  return standIn((call: Call) => {
    if (call.headers.get("authorization") !== `Bearer ${o.token}`)
      return r2rError(
        "INVALID_TOKEN",
        "The access token provided is expired, revoked, malformed, or invalid for other reasons.",
        401,
      );
    if (!o.enabled)
      return r2rError(
        "R2R_COMMENTS_NOT_ALLOWED",
        "This location does not include the respond-to-reviews feature. Contact your Yelp sales exec to enable.",
      );
    const body = call.body as { response_text?: string; response_type?: string };
    if (body.response_type !== "public_comment") return r2rError("R2R_INVALID_RESPONSE_TYPE", "Invalid response type.");
    const text = body.response_text ?? "";
    if (!text.trim() || [...text].length > 5000 || /\p{Extended_Pictographic}/u.test(text))
      return r2rError("R2R_INVALID_RESPONSE_TEXT", "Invalid response text.");
    if (++today > (o.perDay ?? 20))
      return r2rError("R2R_COMMENT_QUOTA_EXCEEDED", "You have made too many comments recently.");
    return jsonResponse({});
  });
}

/**
 * Trustpilot's private reviews API, counting calls as its rate-limit guidance does (833 per 5
 * minutes, 10,000 per hour): beyond either, 429 with Retry-After.
 */
export function trustpilotStandIn(o: { token: string; reviews?: unknown[]; per5Minutes?: number; perHour?: number }) {
  let calls = 0;
  return standIn((call: Call) => {
    calls++;
    if (calls > (o.per5Minutes ?? 833) || calls > (o.perHour ?? 10_000))
      return jsonResponse({ message: "Too Many Requests" }, 429, { "retry-after": "300" });
    if (call.headers.get("authorization") !== `Bearer ${o.token}`)
      return jsonResponse({ message: "Unauthorized" }, 401);
    return jsonResponse({ reviews: o.reviews ?? [], links: [] });
  });
}
