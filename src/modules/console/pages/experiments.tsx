/** @jsxImportSource hono/jsx */
import type { ExperimentStatus } from "../../../db/schema";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { canAdminister, canManage } from "../../../middleware/tenant";
import { getCampaignOperation, listCampaignsOperation } from "../../campaigns/operations";
import type { CampaignDto } from "../../campaigns/schemas";
import {
  completeExperimentOperation,
  createExperimentOperation,
  experimentResultsOperation,
  getExperimentOperation,
  listExperimentsOperation,
  pauseExperimentOperation,
  resumeExperimentOperation,
  startExperimentOperation,
  updateExperimentOperation,
} from "../../experiments/operations";
import type { ExperimentDto, ExperimentResults } from "../../experiments/schemas";
import type { ExperimentMove } from "../../experiments/service";
import { listTemplatesOperation } from "../../templates/operations";
import type { TemplateDto } from "../../templates/schemas";
import { tenantHref, tenantOf, When } from "../atoms";
import { RateChart } from "../charts";
import { act, asRest, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";
import { CHANNEL_LABEL, n, RequestsNav } from "./requests";
import { TEMPLATE_STATUS_LABEL, templateOf } from "./templates";

/*
 * A/B experiments (docs/console.md, "Review requests"): the list (GET /v1/experiments, every role; a plain list
 * as the API answers it), a new one (POST /v1/experiments, manager), an experiment's page with its results (GET
 * /v1/experiments/{id}/results: per variant sends, deliveries, clicks, reviews, rates and the z-test against the
 * control) as a table and bars, and its moves: start, pause, resume (manager), complete with or without a winner
 * (tenant_admin: POST .../complete or PATCH winnerVariantId). Each after REST's own role check.
 */

export const EXPERIMENT_STATUS_LABEL: Record<ExperimentStatus, string> = {
  draft: "Draft",
  running: "Running",
  paused: "Paused",
  completed: "Completed",
};
const STATUS_TONE: Record<ExperimentStatus, string> = {
  draft: "status",
  running: "status ok",
  paused: "status warn",
  completed: "status",
};

export const experimentHref = (c: CC, id = "", rest = "") =>
  tenantHref(c, `/experiments${id ? `/${encodeURIComponent(id)}` : ""}${rest}`);

const VARIANT_ROWS = 4;
const pct = (r: number | null) => (r === null ? "none yet" : `${(r * 100).toFixed(1)}%`);

function NewExperimentForm(props: {
  action: string;
  csrf: string;
  campaigns: CampaignDto[];
  templates: TemplateDto[];
  campaignId?: string;
}) {
  const defaults = [
    ["Control", "50"],
    ["Variant B", "50"],
  ];
  return (
    <section class="card" aria-labelledby="new-experiment">
      <h2 id="new-experiment">New experiment</h2>
      <p class="muted small">
        Customers of the campaign are split between the variants by the traffic shares (each customer always gets the
        same one); the first variant is the control the others are compared with. It starts as a draft.
      </p>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <label for="exp-name">Experiment name</label>
        <input id="exp-name" name="name" type="text" required maxlength={200} autocomplete="off" />
        <label for="exp-hypothesis">Hypothesis</label>
        <textarea id="exp-hypothesis" name="hypothesis" rows={2} required maxlength={2000}>
          A shorter message gets more reviews.
        </textarea>
        <label for="exp-campaign">Campaign</label>
        <select id="exp-campaign" name="campaignId">
          <option value="">None yet</option>
          {props.campaigns.map((x) => (
            <option value={x.id} selected={x.id === props.campaignId}>
              {x.name}
            </option>
          ))}
        </select>
        {Array.from({ length: VARIANT_ROWS }, (_, i) => (
          <fieldset>
            <legend>{i === 0 ? "Variant 1 (the control)" : `Variant ${i + 1}${i > 1 ? " (optional)" : ""}`}</legend>
            <label for={`variant-${i}-name`}>Name</label>
            <input
              id={`variant-${i}-name`}
              name="variantName"
              type="text"
              maxlength={100}
              value={defaults[i]?.[0] ?? ""}
              autocomplete="off"
            />
            <label for={`variant-${i}-traffic`}>Share of customers (%)</label>
            <input
              id={`variant-${i}-traffic`}
              name="variantTraffic"
              type="number"
              min={0}
              max={100}
              step="any"
              value={defaults[i]?.[1] ?? ""}
            />
            <label for={`variant-${i}-template`}>Message</label>
            <select id={`variant-${i}-template`} name="variantTemplate">
              <option value="">The campaign's template</option>
              {props.templates.map((t) => (
                <option value={t.id}>
                  {CHANNEL_LABEL[t.channel]}: {t.name} (v{t.version}, {TEMPLATE_STATUS_LABEL[t.status]})
                </option>
              ))}
            </select>
          </fieldset>
        ))}
        <div class="actions">
          <button type="submit">Create the experiment</button>
        </div>
      </form>
    </section>
  );
}

export async function experimentsPage(c: CC): Promise<Response> {
  const campaignId = c.req.query("campaignId") || undefined;
  const manager = can(c, "manager");
  const [tenant, list, campaigns, templates, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<ExperimentDto[]>(c, listExperimentsOperation, { query: { campaignId } }),
    callOperation<Page<CampaignDto>>(c, listCampaignsOperation, { query: { limit: "200" } }),
    manager ? callOperation<Page<TemplateDto>>(c, listTemplatesOperation, { query: { limit: "200" } }) : null,
    csrfOf(c),
  ]);
  const names = new Map(campaigns.data.map((x) => [x.id, x.name]));
  return page(
    c,
    { title: "Experiments", section: "requests", tenant },
    <>
      <h1>Experiments</h1>
      <RequestsNav c={c} current="experiments" />
      {list.length === 0 ? (
        <p class="card">
          No experiment yet.{" "}
          {manager
            ? "Create one below to test one message against another within a campaign."
            : "A manager of this business creates them."}
        </p>
      ) : (
        <table class="rows">
          <caption>Experiments ({list.length}), newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Campaign</th>
              <th scope="col">Variants</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.map((e) => (
              <tr>
                <th scope="row" data-label="Name">
                  <a href={experimentHref(c, e.id)}>{e.name}</a>
                </th>
                <td data-label="Campaign">
                  {e.campaignId ? (names.get(e.campaignId) ?? "a campaign") : <span class="muted">none</span>}
                </td>
                <td data-label="Variants">{e.variants.map((v) => `${v.name} ${v.trafficPercent}%`).join(", ")}</td>
                <td data-label="Status">
                  <span class={STATUS_TONE[e.status]}>{EXPERIMENT_STATUS_LABEL[e.status]}</span>
                </td>
                <td data-label="Created">
                  <When iso={e.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {manager && (
        <NewExperimentForm
          action={experimentHref(c)}
          csrf={csrf}
          campaigns={campaigns.data}
          templates={(templates?.data ?? []).filter((t) => t.status !== "archived")}
          campaignId={campaignId}
        />
      )}
    </>,
  );
}

function ResultsTable({ r, winner }: { r: ExperimentResults; winner: string | null }) {
  return (
    <table class="rows">
      <caption>Results per variant (rates over messages sent)</caption>
      <thead>
        <tr>
          <th scope="col">Variant</th>
          <th scope="col">Sent</th>
          <th scope="col">Delivered</th>
          <th scope="col">Clicked</th>
          <th scope="col">Reviewed</th>
          <th scope="col">Against the control</th>
        </tr>
      </thead>
      <tbody>
        {r.variants.map((v) => {
          const test = v.vsControl?.conversionRate ?? null;
          return (
            <tr>
              <th scope="row" data-label="Variant">
                {v.name} ({v.trafficPercent}%){v.isControl && " · control"}
                {v.variantId === winner && " · winner"}
              </th>
              <td data-label="Sent">{n(v.sent)}</td>
              <td data-label="Delivered">
                {n(v.delivered)} ({pct(v.deliveryRate)})
              </td>
              <td data-label="Clicked">
                {n(v.clicked)} ({pct(v.clickRate)})
              </td>
              <td data-label="Reviewed">
                {n(v.converted)} ({pct(v.conversionRate)})
              </td>
              <td data-label="Against the control">
                {v.isControl
                  ? "this is the control"
                  : test === null
                    ? "not enough sends to compare"
                    : `${test.difference >= 0 ? "+" : ""}${(test.difference * 100).toFixed(1)} points${
                        test.lift === null ? "" : ` (${test.lift >= 0 ? "+" : ""}${(test.lift * 100).toFixed(0)}%)`
                      }, p = ${test.pValue.toFixed(3)}: ${test.significant ? "significant" : "not significant"}`}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

const experimentId = (c: CC) => c.req.param("experimentId") ?? "";

export async function experimentPage(c: CC): Promise<Response> {
  const params = { id: experimentId(c) };
  const [tenant, e, results, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<ExperimentDto>(c, getExperimentOperation, { params }),
    callOperation<ExperimentResults>(c, experimentResultsOperation, { params }),
    csrfOf(c),
  ]);
  // the campaign's name and each variant's message, as GET /v1/campaigns/{id} and /v1/templates/{id} read them
  const [campaign, templates] = await Promise.all([
    e.campaignId ? callOperation<CampaignDto>(c, getCampaignOperation, { params: { id: e.campaignId } }) : null,
    Promise.all(e.variants.map((v) => (v.templateId ? templateOf(c, v.templateId) : null))),
  ]);
  const base = experimentHref(c, e.id);
  const move = (name: ExperimentMove, label: string) => (
    <form method="post" action={`${base}/${name}`}>
      <Csrf token={csrf} />
      <button type="submit" class={name === "start" || name === "resume" ? undefined : "secondary"}>
        {label}
      </button>
    </form>
  );
  const manager = can(c, "manager");
  const open = e.status === "running" || e.status === "paused";
  const winner = e.variants.find((v) => v.id === e.winnerVariantId);
  return page(
    c,
    { title: e.name, section: "requests", tenant },
    <>
      <p>
        <a href={experimentHref(c)}>All experiments</a>
      </p>
      <h1>{e.name}</h1>
      <RequestsNav c={c} current="experiments" />
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={STATUS_TONE[e.status]}>{EXPERIMENT_STATUS_LABEL[e.status]}</span>
          {winner && ` · winner: ${winner.name}`}
        </dd>
        <dt>Hypothesis</dt>
        <dd>{e.hypothesis}</dd>
        <dt>Campaign</dt>
        <dd>
          {campaign ? (
            <a href={tenantHref(c, `/campaigns/${encodeURIComponent(campaign.id)}`)}>{campaign.name}</a>
          ) : (
            "none"
          )}
        </dd>
        <dt>Variants</dt>
        <dd>
          <ul class="small">
            {e.variants.map((v, i) => {
              const t = templates[i];
              return (
                <li>
                  {v.name} ({v.trafficPercent}%){i === 0 && ", the control"}:{" "}
                  {t ? (
                    <a href={tenantHref(c, `/templates/${encodeURIComponent(t.id)}`)}>{t.name}</a>
                  ) : (
                    "the campaign's template"
                  )}
                </li>
              );
            })}
          </ul>
        </dd>
        <dt>Started</dt>
        <dd>
          <When iso={e.startedAt} />
        </dd>
        {e.completedAt && (
          <>
            <dt>Completed</dt>
            <dd>
              <When iso={e.completedAt} />
            </dd>
          </>
        )}
      </dl>
      {manager && (
        <div class="actions">
          {e.status === "draft" && move("start", "Start")}
          {e.status === "running" && move("pause", "Pause")}
          {e.status === "paused" && move("resume", "Resume")}
        </div>
      )}
      <ResultsTable r={results} winner={e.winnerVariantId} />
      <RateChart
        id="exp-chart"
        title="Reviews per message sent, by variant"
        bars={results.variants.map((v) => ({ label: v.name, rate: v.conversionRate }))}
      />
      <p class="muted small">
        “Significant” means a difference this large would arise by chance less than{" "}
        {Math.round(results.significanceLevel * 100)}% of the time (a two-proportion z-test against the control).
      </p>
      {can(c, "tenant_admin") && open && (
        <section class="card" aria-labelledby="complete">
          <h2 id="complete">Complete the experiment</h2>
          <form method="post" action={`${base}/complete`}>
            <Csrf token={csrf} />
            <label for="winner">Winner</label>
            <select id="winner" name="winnerVariantId">
              <option value="">No winner</option>
              {e.variants.map((v) => (
                <option value={v.id}>{v.name}</option>
              ))}
            </select>
            <div class="actions">
              <button type="submit">Complete</button>
            </div>
          </form>
        </section>
      )}
    </>,
  );
}

/** The variant rows as POST's variants: a row with a name is a variant, in the order shown. */
function variantsOf(form: { all(name: string): string[] }) {
  const [names, traffic, templates] = [
    form.all("variantName"),
    form.all("variantTraffic"),
    form.all("variantTemplate"),
  ];
  return names.flatMap((name, i) =>
    name.trim() ? [{ name, trafficPercent: Number(traffic[i] || "0"), templateId: templates[i] || null }] : [],
  );
}

/** REST: POST /v1/experiments (canManage). */
export async function createExperimentSubmit(c: CC): Promise<Response> {
  return act(c, experimentHref(c), async () => {
    await asRest(c, canManage);
    const form = await formOf(c);
    const created = await callOperation<ExperimentDto>(c, createExperimentOperation, {
      body: {
        name: form.one("name"),
        hypothesis: form.one("hypothesis"),
        campaignId: form.one("campaignId") || null,
        variants: variantsOf(form),
      },
    });
    return redirectTo(c, experimentHref(c, created.id), {
      kind: "notice",
      text: `The experiment “${created.name}” is a draft. Start it when the campaign is ready.`,
    });
  });
}

const MOVE_OPERATION = {
  start: startExperimentOperation,
  pause: pauseExperimentOperation,
  resume: resumeExperimentOperation,
};

const MOVE_TEXT: Record<Exclude<ExperimentMove, "complete">, string> = {
  start: "is running: each send of its campaign goes to one of its variants.",
  pause: "is paused: sends use the campaign's own templates until it is resumed.",
  resume: "is running again.",
};

/** REST: POST /v1/experiments/{id}/start, /pause or /resume (canManage). */
const moveSubmit = (name: Exclude<ExperimentMove, "complete">) => async (c: CC) => {
  const back = experimentHref(c, experimentId(c));
  return act(c, back, async () => {
    const e = await callOperation<ExperimentDto>(c, MOVE_OPERATION[name], { params: { id: experimentId(c) } });
    return redirectTo(c, back, { kind: "notice", text: `“${e.name}” ${MOVE_TEXT[name]}` });
  });
};
export const startExperimentSubmit = moveSubmit("start");
export const pauseExperimentSubmit = moveSubmit("pause");
export const resumeExperimentSubmit = moveSubmit("resume");

/** REST: PATCH /v1/experiments/{id} {winnerVariantId} or POST .../complete (canAdminister). */
export async function completeExperimentSubmit(c: CC): Promise<Response> {
  const back = experimentHref(c, experimentId(c));
  return act(c, back, async () => {
    await asRest(c, canAdminister);
    const winnerVariantId = (await formOf(c)).one("winnerVariantId");
    const params = { id: experimentId(c) };
    const e = await (winnerVariantId
      ? callOperation<ExperimentDto>(c, updateExperimentOperation, { params, body: { winnerVariantId } })
      : callOperation<ExperimentDto>(c, completeExperimentOperation, { params }));
    const winner = e.variants.find((v) => v.id === e.winnerVariantId);
    return redirectTo(c, back, {
      kind: "notice",
      text: `“${e.name}” is completed${winner ? `: ${winner.name} won` : " without a winner"}.`,
    });
  });
}
