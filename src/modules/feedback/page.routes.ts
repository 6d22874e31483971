import { type Context, Hono } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { AppEnv } from "../../app-env";
import type { SurveyQuestion } from "../../db/schema";
import { isTenantMoving } from "../../db/tenant-fence";
import { ApiError } from "../../lib/errors";
import { htmlDocument } from "../../lib/html";
import { hostBrand } from "../white-label/resolve";
import type { Landing } from "./landing";
import { type FormState, feedbackPage, notFoundPage, thanksPage } from "./page";
import { publicRequest } from "./routes";
import { SubmitFeedbackBody } from "./schemas";
import { feedbackLinkData, openFeedbackLink, submitFeedbackByToken } from "./service";

const SECURITY_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

const html = (page: JSX.Element, status = 200) =>
  new Response(htmlDocument(page), { status, headers: SECURITY_HEADERS });

/** On a custom hostname the not-found page still wears the host owner's brand. */
const notFound = async (c: Context<AppEnv>) =>
  html(notFoundPage(await hostBrand(c.var.control, c.var.customHost)), 404);

/**
 * The blank rating form of a location, rendered once per cached landing and reused with each
 * link's own form action: only the action differs between two links of one location. Keyed by
 * the cached location object, so an entry lives exactly as long as the landing data it shows.
 * Survey pages (per solicitation) are rendered each time.
 */
const ACTION_SLOT = "/f/__feedback_action__";
/** The page as UTF-8 before and after the action: a hit copies bytes instead of encoding the page again. */
const blankForms = new WeakMap<object, { before: Uint8Array; after: Uint8Array }>();
const utf8 = new TextEncoder();

function blankFeedbackPage(landing: Landing, token: string): Response {
  const action = `/f/${encodeURIComponent(token)}`;
  if (landing.survey) return html(feedbackPage(landing, action));
  let page = blankForms.get(landing.location);
  if (page === undefined) {
    const text = htmlDocument(feedbackPage(landing, ACTION_SLOT));
    const at = text.indexOf(ACTION_SLOT);
    page = { before: utf8.encode(text.slice(0, at)), after: utf8.encode(text.slice(at + ACTION_SLOT.length)) };
    blankForms.set(landing.location, page);
  }
  // encodeURIComponent leaves nothing that needs escaping inside an attribute (and only ASCII)
  const middle = utf8.encode(action);
  const body = new Uint8Array(page.before.length + middle.length + page.after.length);
  body.set(page.before, 0);
  body.set(middle, page.before.length);
  body.set(page.after, page.before.length + middle.length);
  return new Response(body, { status: 200, headers: SECURITY_HEADERS });
}

/** Unknown or forged tokens get the friendly page; other errors go to the app's handler. */
async function orNotFound(c: Context<AppEnv>, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ApiError && e.code === "NOT_FOUND") return notFound(c);
    throw e;
  }
}

type Form = Record<string, string | File | (string | File)[]>;
const one = (v: Form[string] | undefined) =>
  typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : undefined;
const num = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : Number(v));

function answer(q: SurveyQuestion, raw: Form[string] | undefined): unknown {
  if (q.type === "multiple_choice")
    return (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
      (x): x is string => typeof x === "string",
    );
  const v = one(raw);
  if (v === undefined) return undefined;
  if (["nps", "csat", "ces", "rating"].includes(q.type)) return num(v);
  if (q.type === "yes_no") return v === "yes" ? true : v === "no" ? false : v;
  return v;
}

/** The form's fields as the JSON body of POST /v1/f/{token}; empty fields are left out. */
function bodyFromForm(form: Form, landing: Landing) {
  const body: Record<string, unknown> = {
    rating: num(one(form.rating)),
    surveyType: one(form.surveyType) || undefined,
    score: num(one(form.score)),
    text: one(form.text)?.trim() || undefined,
    callbackRequested: one(form.callbackRequested) ? true : undefined,
  };
  const answers = Object.fromEntries(
    (landing.survey?.questions ?? [])
      .map((q) => [q.id, answer(q, form[`q.${q.id}`])] as const)
      .filter(([, v]) => v !== undefined && v !== ""),
  );
  if (Object.keys(answers).length) body.surveyResponses = answers;
  if (body.score === undefined) delete body.surveyType;
  return body;
}

const friendly = (issues: { path: string; message: string }[]) =>
  issues.some((i) => i.path === "")
    ? "Please pick a rating or write a comment before sending."
    : `Please check your answers: ${issues.map((i) => i.message).join("; ")}.`;

/** The hosted feedback page (HTML, outside the OpenAPI document): form, form post, thank-you page. */
export const feedbackPageRoutes = new Hono<AppEnv>()
  .get("/f/:token", (c: Context<AppEnv>) =>
    orNotFound(c, async () => {
      const token = c.req.param("token")!;
      const { landing } = await openFeedbackLink(publicRequest(c), token);
      return blankFeedbackPage(landing, token);
    }),
  )
  .post("/f/:token", (c: Context<AppEnv>) =>
    orNotFound(c, async () => {
      const token = c.req.param("token")!;
      const req = publicRequest(c);
      const landing = await feedbackLinkData(req, token);
      const form = (await c.req.parseBody({ all: true }).catch(() => ({}))) as Form;
      const body = bodyFromForm(form, landing);
      const state: FormState = {
        text: body.text as string | undefined,
        rating: body.rating as number | undefined,
        score: body.score as number | undefined,
        callbackRequested: Boolean(body.callbackRequested),
      };
      const parsed = SubmitFeedbackBody.safeParse(body);
      const action = `/f/${encodeURIComponent(token)}`;
      if (!parsed.success) {
        return html(
          feedbackPage(landing, action, {
            ...state,
            error: friendly(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }))),
          }),
          400,
        );
      }
      try {
        await submitFeedbackByToken(req, token, parsed.data);
      } catch (e) {
        if (e instanceof ApiError && e.code === "VALIDATION_ERROR") {
          return html(
            feedbackPage(landing, action, {
              ...state,
              error: friendly((e.details?.issues as { path: string; message: string }[]) ?? []),
            }),
            400,
          );
        }
        if (e instanceof ApiError && e.code === "CONFLICT")
          return html(
            feedbackPage(landing, action, {
              ...state,
              error: "Thank you, but feedback for this visit was already received.",
            }),
            409,
          );
        if (isTenantMoving(e)) {
          // the answers stay in the form: the person sends them again once the move's fence is lifted
          const page = html(
            feedbackPage(landing, action, {
              ...state,
              error: "We could not save your feedback just now. Please send it again in a few seconds.",
            }),
            503,
          );
          page.headers.set("Retry-After", e.headers!["Retry-After"]!);
          return page;
        }
        throw e;
      }
      // Post/Redirect/Get: reloading the thank-you page does not resubmit
      return c.redirect(`${action}/thanks`, 303);
    }),
  )
  .get("/f/:token/thanks", (c: Context<AppEnv>) =>
    orNotFound(c, async () => html(thanksPage(await feedbackLinkData(publicRequest(c), c.req.param("token")!)))),
  );
