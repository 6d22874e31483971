/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { SurveyQuestion } from "../../db/schema";
import { BrandFooter, brandCss } from "../white-label/render";
import { DEFAULT_BRAND, type EffectiveBrand } from "../white-label/resolve";
import type { Landing, LandingSurvey } from "./landing";
import type { ReviewLink } from "./review-links";

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:17px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
main{max-width:36rem;margin:0 auto;padding:1.25rem 1rem 3rem}
header{display:flex;align-items:center;gap:.75rem;margin-bottom:1rem}
header img{width:48px;height:48px;object-fit:contain;border-radius:8px;background:#fff}
header p{margin:0;font-weight:700;font-size:1.1rem}
header small{display:block;font-weight:400;color:#4b5563;font-size:.9rem}
.card{background:#fff;border-radius:14px;box-shadow:0 1px 4px #0002;padding:1.25rem}
h1{font-size:1.35rem;margin:0 0 1rem;line-height:1.3}
fieldset{border:0;margin:0 0 1.25rem;padding:0}
legend{font-weight:600;margin-bottom:.5rem;padding:0}
.stars{display:flex;flex-direction:row-reverse;justify-content:flex-end;gap:.25rem}
.stars input,.scale input{position:absolute;opacity:0;width:1px;height:1px}
.stars label{font-size:2.4rem;line-height:1;color:#d1d5db;cursor:pointer;padding:.1rem}
.stars input:checked~label,.stars label:hover,.stars label:hover~label{color:#f59e0b}
.stars input:focus-visible+label,.scale input:focus-visible+label{outline:3px solid #2563eb;outline-offset:2px;border-radius:6px}
.scale{display:flex;flex-wrap:wrap;gap:.35rem}
.scale label{min-width:2.6rem;text-align:center;padding:.55rem .3rem;border:1px solid #d1d5db;border-radius:8px;cursor:pointer;background:#fff}
.scale input:checked+label{background:#2563eb;border-color:#2563eb;color:#fff}
.ends{display:flex;justify-content:space-between;color:#6b7280;font-size:.85rem;margin-top:.25rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
label.block{display:block;font-weight:600;margin-bottom:.35rem}
textarea,select,input[type=text]{width:100%;font:inherit;padding:.6rem;border:1px solid #d1d5db;border-radius:8px}
textarea{min-height:7rem}
.check{display:flex;gap:.6rem;align-items:flex-start;margin:0 0 1.25rem}
.check input{width:1.25rem;height:1.25rem;margin-top:.2rem}
.choice{display:block;font-weight:400;margin:.25rem 0}
button{width:100%;font:inherit;font-weight:600;padding:.8rem;border:0;border-radius:10px;background:#2563eb;color:#fff;cursor:pointer}
.error{background:#fef2f2;border:1px solid #fca5a5;color:#991b1b;border-radius:8px;padding:.6rem .8rem;margin-bottom:1rem}
.links{list-style:none;padding:0;margin:1rem 0 0;display:grid;gap:.6rem}
.links a{display:block;text-align:center;padding:.75rem;border:1px solid #2563eb;border-radius:10px;color:#1d4ed8;text-decoration:none;font-weight:600}
.muted{color:#4b5563}
@media (min-width:40rem){main{padding-top:3rem}.card{padding:2rem}}
`;

function Layout(props: { title: string; landing?: Landing; brand?: EffectiveBrand; children: Child }) {
  const l = props.landing;
  const brand = props.brand ?? l?.whiteLabel ?? DEFAULT_BRAND;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
        {/* brandCss emits only colours that passed a strict #rrggbb check */}
        <style dangerouslySetInnerHTML={{ __html: STYLE + brandCss(brand) }} />
      </head>
      <body>
        <main>
          {l && (
            <header>
              {l.brand.logoUrl && <img src={l.brand.logoUrl} alt={`${l.brand.name} logo`} />}
              <p>
                {l.brand.name}
                <small>{[l.location.name, l.location.city].filter(Boolean).join(", ")}</small>
              </p>
            </header>
          )}
          <div class="card">{props.children}</div>
          <BrandFooter brand={brand} />
        </main>
      </body>
    </html>
  );
}

function Stars(props: { name: string; legend: string; checked?: number }) {
  // row-reverse: the markup runs 5..1 so "this star and the ones before it" light up with CSS alone
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      <div class="stars">
        {[5, 4, 3, 2, 1].map((n) => (
          <>
            <input
              type="radio"
              id={`${props.name}-${n}`}
              name={props.name}
              value={String(n)}
              checked={props.checked === n}
            />
            <label for={`${props.name}-${n}`} title={`${n} star${n === 1 ? "" : "s"}`}>
              <span aria-hidden="true">★</span>
              <span class="sr">{`${n} star${n === 1 ? "" : "s"}`}</span>
            </label>
          </>
        ))}
      </div>
    </fieldset>
  );
}

function Scale(props: {
  name: string;
  legend: string;
  from: number;
  to: number;
  low: string;
  high: string;
  checked?: number;
}) {
  const values = Array.from({ length: props.to - props.from + 1 }, (_, i) => props.from + i);
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      <div class="scale">
        {values.map((n) => (
          <>
            <input
              type="radio"
              id={`${props.name}-${n}`}
              name={props.name}
              value={String(n)}
              checked={props.checked === n}
            />
            <label for={`${props.name}-${n}`}>{String(n)}</label>
          </>
        ))}
      </div>
      <div class="ends" aria-hidden="true">
        <span>{props.low}</span>
        <span>{props.high}</span>
      </div>
    </fieldset>
  );
}

const MAIN_QUESTION: Record<
  Exclude<LandingSurvey["type"], "custom">,
  { legend: (place: string) => string; from: number; to: number; low: string; high: string }
> = {
  NPS: {
    legend: (p) => `How likely are you to recommend ${p} to a friend or colleague?`,
    from: 0,
    to: 10,
    low: "0 = not at all likely",
    high: "10 = extremely likely",
  },
  CSAT: {
    legend: (p) => `How satisfied were you with ${p}?`,
    from: 1,
    to: 5,
    low: "1 = very unsatisfied",
    high: "5 = very satisfied",
  },
  CES: {
    legend: () => "How easy was it to get what you needed?",
    from: 1,
    to: 7,
    low: "1 = very difficult",
    high: "7 = very easy",
  },
};

function Question({ q }: { q: SurveyQuestion }) {
  const name = `q.${q.id}`;
  const label = `${q.label}${q.required ? " (required)" : ""}`;
  switch (q.type) {
    case "nps":
      return (
        <Scale name={name} legend={label} from={0} to={10} low="0 = not at all likely" high="10 = extremely likely" />
      );
    case "csat":
      return <Scale name={name} legend={label} from={1} to={5} low="1 = very unsatisfied" high="5 = very satisfied" />;
    case "ces":
      return <Scale name={name} legend={label} from={1} to={7} low="1 = very difficult" high="7 = very easy" />;
    case "rating":
      return <Stars name={name} legend={label} />;
    case "yes_no":
      return (
        <fieldset>
          <legend>{label}</legend>
          {["yes", "no"].map((v) => (
            <label class="choice">
              <input type="radio" name={name} value={v} /> {v === "yes" ? "Yes" : "No"}
            </label>
          ))}
        </fieldset>
      );
    case "single_choice":
    case "multiple_choice":
      return (
        <fieldset>
          <legend>{label}</legend>
          {q.options!.map((o) => (
            <label class="choice">
              <input type={q.type === "single_choice" ? "radio" : "checkbox"} name={name} value={o} /> {o}
            </label>
          ))}
        </fieldset>
      );
    default:
      return (
        <p>
          <label class="block" for={`q-${q.id}`}>
            {label}
          </label>
          <textarea id={`q-${q.id}`} name={name} maxlength={2000} />
        </p>
      );
  }
}

export interface FormState {
  error?: string;
  text?: string;
  rating?: number;
  score?: number;
  callbackRequested?: boolean;
}

/** GET /f/{token}: the feedback form; a plain POST to the same URL, no script needed. */
export function feedbackPage(landing: Landing, action: string, state: FormState = {}) {
  const survey = landing.survey;
  const place = landing.location.name;
  const main = survey && survey.type !== "custom" ? MAIN_QUESTION[survey.type] : null;
  return (
    <Layout title={`Feedback for ${landing.brand.name}`} landing={landing}>
      <h1>{survey?.name ?? `How was your visit to ${place}?`}</h1>
      {survey?.description && <p class="muted">{survey.description}</p>}
      {state.error && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      <form method="post" action={action}>
        {main ? (
          <>
            <input type="hidden" name="surveyType" value={survey!.type.toLowerCase()} />
            <Scale
              name="score"
              legend={main.legend(place)}
              from={main.from}
              to={main.to}
              low={main.low}
              high={main.high}
              checked={state.score}
            />
          </>
        ) : (
          <Stars name="rating" legend="Your rating" checked={state.rating} />
        )}
        {survey?.questions.map((q) => (
          <Question q={q} />
        ))}
        <p>
          <label class="block" for="text">
            Tell us more (optional)
          </label>
          <textarea id="text" name="text" maxlength={5000}>
            {state.text ?? ""}
          </textarea>
        </p>
        <label class="check" for="callback">
          <input type="checkbox" id="callback" name="callbackRequested" value="yes" checked={state.callbackRequested} />
          <span>Please contact me about my experience</span>
        </label>
        <button type="submit">Send feedback</button>
      </form>
    </Layout>
  );
}

function ReviewLinks({ links, place }: { links: ReviewLink[]; place: string }) {
  if (!links.length) return null;
  return (
    <section aria-labelledby="share">
      <h2 id="share" style="font-size:1.1rem;margin:1.5rem 0 0">
        Share your experience publicly
      </h2>
      <p class="muted">Your review helps others find {place}. You can post one on:</p>
      <ul class="links">
        {links.map((l) => (
          <li>
            <a href={l.url} rel="noopener noreferrer" target="_blank">
              Review us on {l.label}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** After a submit: thanks, and the public review links for everyone, whatever the rating (no review gating). */
export function thanksPage(landing: Landing) {
  return (
    <Layout title={`Thank you - ${landing.brand.name}`} landing={landing}>
      <h1>Thank you for your feedback!</h1>
      <p>We read every response, and it goes straight to the team at {landing.location.name}.</p>
      <p class="muted">Changed your mind? You can update your answer from the same link within 24 hours.</p>
      <ReviewLinks links={landing.reviewLinks} place={landing.location.name} />
    </Layout>
  );
}

/** Unknown, expired or forged link. */
export function notFoundPage(brand?: EffectiveBrand) {
  return (
    <Layout title="Link not found" brand={brand}>
      <h1>We couldn't find this feedback page</h1>
      <p>
        The link may be incomplete or no longer valid. Please check that you copied the whole link from your message.
      </p>
      <p class="muted">
        If you clicked it straight from the message, the business may have closed this request. Thank you for wanting to
        share your experience.
      </p>
    </Layout>
  );
}
