/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { TENANT_ROLES } from "../../../db/schema";
import { EVENT_TYPES, type EventType } from "../../../lib/events";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import {
  createAutomationRuleOperation,
  deleteAutomationRuleOperation,
  getAutomationRuleOperation,
  listAutomationRuleRunsOperation,
  listAutomationRulesOperation,
  updateAutomationRuleOperation,
} from "../../automation/operations";
import {
  ACTION_TYPES,
  type ActionType,
  type AutomationRuleSchema,
  type AutomationRuleWithSecretSchema,
  type AutomationRunSchema,
  CONDITION_OPS,
  type ConditionOp,
} from "../../automation/schemas";
import { isEventType, payloadFields } from "../../events/catalogue";
import { listLocationsOperation } from "../../locations/operations";
import type { LocationSchema } from "../../locations/schemas";
import { listUsersOperation } from "../../users/operations";
import type { TenantUserDto } from "../../users/schemas";
import { Pager, ShownOnce, tenantHref, tenantOf, When } from "../atoms";
import { act, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf, type Flash, ROLE_LABEL } from "../layout";

/*
 * Automation rules (docs/console.md, issue #46 item 7): "when this event happens (and these conditions hold),
 * do that". The list and a rule with its recent runs are GET /v1/automation-rules and /{id}/runs (every role
 * reads them); a manager adds a rule (POST /v1/automation-rules), pauses or resumes it (PATCH isActive) and
 * deletes it (DELETE), each through its REST operation (callOperation: REST's canManage and schemas). The form makes one action per rule (decided: the common
 * case, and a form of its own per kind of action, chosen first, reads better than one form for all seven);
 * a rule made over REST with several actions is listed and run the same. A rule that calls a URL gets its own
 * signing secret, shown once in the answer to the post.
 */

type Rule = z.infer<typeof AutomationRuleSchema>;
type Run = z.infer<typeof AutomationRunSchema>;
type RuleWithSecret = z.infer<typeof AutomationRuleWithSecretSchema>;
type Location = z.infer<typeof LocationSchema>;

export const ACTION_LABEL: Record<ActionType, string> = {
  notify_email: "Email people",
  assign_inbox: "Assign the inbox item to someone",
  add_tags: "Tag the inbox item",
  create_response_draft: "Draft a reply",
  send_solicitation: "Send a review request",
  send_webhook: "Call a URL (a signed POST)",
  create_recommendation: "Add a recommendation",
};

const OP_LABEL: Record<ConditionOp, string> = {
  eq: "is",
  neq: "is not",
  gt: "is more than",
  gte: "is at least",
  lt: "is less than",
  lte: "is at most",
  in: "is one of (comma-separated)",
  contains: "contains",
};

const OUTCOME_TONE: Record<Run["outcome"], string> = {
  running: "status warn",
  succeeded: "status ok",
  partial: "status warn",
  failed: "status bad",
  skipped: "status",
};

/** How many condition rows the form offers (REST allows 20; a rule rarely needs more than three). */
const CONDITION_ROWS = 3;

const ruleHref = (c: CC, id = "", rest = "") =>
  tenantHref(c, `/automation${id ? `/${encodeURIComponent(id)}` : ""}${rest}`);

const actionLabel = (type: string) => ACTION_LABEL[type as ActionType] ?? type;

const valueText = (v: unknown) => (Array.isArray(v) ? v.join(", ") : String(v));

/** Every payload field any event names, for the condition rows' suggestions. */
const ALL_FIELDS = [...new Set(EVENT_TYPES.flatMap((t) => [...payloadFields(t).keys()]))].sort();

/** What an action does, in a line (its config as REST holds it). */
function actionSummary(a: { type: string; config: Record<string, unknown> }): string {
  const c = a.config;
  switch (a.type) {
    case "notify_email":
      return `${c.subject ?? ""} → ${[...((c.to as string[]) ?? []), ...(c.toRole ? [`every ${ROLE_LABEL[c.toRole as keyof typeof ROLE_LABEL] ?? c.toRole}`] : [])].join(", ")}`;
    case "send_webhook":
      return String(c.url ?? "");
    case "add_tags":
      return ((c.tags as string[]) ?? []).join(", ");
    case "create_response_draft":
      return c.mode === "ai" ? "written by the assistant" : String(c.text ?? "");
    case "send_solicitation":
      return `by ${c.channel}`;
    case "create_recommendation":
      return String(c.title ?? "");
    default:
      return "";
  }
}

/** Step 1 of adding a rule: what it does (a GET form; the next page has that action's fields). */
function ChooseAction(props: { action: string }) {
  return (
    <section class="card" aria-labelledby="add-rule">
      <h2 id="add-rule">Add a rule</h2>
      <form method="get" action={props.action}>
        <label for="rule-kind">What should it do?</label>
        <select id="rule-kind" name="action">
          {ACTION_TYPES.map((t) => (
            <option value={t}>{ACTION_LABEL[t]}</option>
          ))}
        </select>
        <div class="actions">
          <button type="submit">Next</button>
        </div>
      </form>
    </section>
  );
}

function ActionFields({ type, people }: { type: ActionType; people: { id: string; name: string }[] }) {
  switch (type) {
    case "notify_email":
      return (
        <>
          <label for="a-to">Email addresses (comma-separated, optional)</label>
          <input id="a-to" name="to" type="text" maxlength={2600} autocomplete="off" />
          <label for="a-role">Or everyone with this role</label>
          <select id="a-role" name="toRole">
            <option value="">Nobody by role</option>
            {TENANT_ROLES.map((r) => (
              <option value={r}>{ROLE_LABEL[r]}</option>
            ))}
          </select>
          <label for="a-subject">Subject</label>
          <input id="a-subject" name="subject" type="text" required maxlength={200} />
          <label for="a-text">Text</label>
          <textarea id="a-text" name="text" required maxlength={4000} rows={4}></textarea>
        </>
      );
    case "assign_inbox":
      return (
        <>
          <label for="a-user">Assign to</label>
          <select id="a-user" name="userId">
            {people.map((p) => (
              <option value={p.id}>{p.name}</option>
            ))}
          </select>
        </>
      );
    case "add_tags":
      return (
        <>
          <label for="a-tags">Tags (comma-separated)</label>
          <input id="a-tags" name="tags" type="text" required maxlength={500} autocomplete="off" />
        </>
      );
    case "create_response_draft":
      return (
        <>
          <label for="a-mode">Who writes it</label>
          <select id="a-mode" name="mode">
            <option value="template">This text</option>
            <option value="ai">The assistant</option>
          </select>
          <label for="a-text">Text (for "This text")</label>
          <textarea id="a-text" name="text" maxlength={4000} rows={4}></textarea>
        </>
      );
    case "send_solicitation":
      return (
        <>
          <label for="a-channel">Channel</label>
          <select id="a-channel" name="channel">
            <option value="email">Email</option>
            <option value="sms">SMS</option>
            <option value="whatsapp">WhatsApp</option>
          </select>
        </>
      );
    case "send_webhook":
      return (
        <>
          <label for="a-url">URL (https)</label>
          <input id="a-url" name="url" type="url" required maxlength={2048} autocomplete="off" />
        </>
      );
    case "create_recommendation":
      return (
        <>
          <label for="a-type">Kind (a word of yours, e.g. follow_up)</label>
          <input id="a-type" name="type" type="text" required maxlength={64} autocomplete="off" />
          <label for="a-title">Title</label>
          <input id="a-title" name="title" type="text" required maxlength={200} />
          <label for="a-description">Description (optional)</label>
          <textarea id="a-description" name="description" maxlength={4000} rows={3}></textarea>
          <label for="a-priority">Priority</label>
          <select id="a-priority" name="priority">
            {["low", "medium", "high", "critical"].map((p) => (
              <option value={p} selected={p === "medium"}>
                {p}
              </option>
            ))}
          </select>
        </>
      );
  }
}

/** Step 2: the rule's trigger, conditions and the chosen action's fields. */
function RuleForm(props: {
  type: ActionType;
  action: string;
  csrf: string;
  locations: Location[];
  people: { id: string; name: string }[];
  back: string;
}) {
  return (
    <section class="card" aria-labelledby="add-rule">
      <h2 id="add-rule">Add a rule: {ACTION_LABEL[props.type]}</h2>
      <p class="small">
        <a href={props.back}>Choose another kind of action</a>
      </p>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <input type="hidden" name="action" value={props.type} />
        <label for="r-name">Name</label>
        <input id="r-name" name="name" type="text" required maxlength={200} autocomplete="off" />
        <label for="r-trigger">When this happens</label>
        <select id="r-trigger" name="triggerEventType">
          {EVENT_TYPES.map((e) => (
            <option value={e} selected={e === "review.negative"}>
              {e}
            </option>
          ))}
        </select>
        <label for="r-location">At</label>
        <select id="r-location" name="locationId">
          <option value="">Every location</option>
          {props.locations.map((l) => (
            <option value={l.id}>{l.name}</option>
          ))}
        </select>
        <fieldset>
          <legend>Only if (optional)</legend>
          <p class="muted small">
            A field of the event, e.g. <code>rating</code> is less than <code>3</code>. Leave a row empty to skip it.
          </p>
          <datalist id="fields">
            {ALL_FIELDS.map((f) => (
              <option value={f} />
            ))}
          </datalist>
          {Array.from({ length: CONDITION_ROWS }, (_, i) => (
            <div class="filters">
              <div>
                <label for={`c-field-${i}`}>Field {i + 1}</label>
                <input id={`c-field-${i}`} name="field" type="text" list="fields" maxlength={100} autocomplete="off" />
              </div>
              <div>
                <label for={`c-op-${i}`}>Test {i + 1}</label>
                <select id={`c-op-${i}`} name="op">
                  {CONDITION_OPS.map((o) => (
                    <option value={o}>{OP_LABEL[o]}</option>
                  ))}
                </select>
              </div>
              <div>
                <label for={`c-value-${i}`}>Value {i + 1}</label>
                <input id={`c-value-${i}`} name="value" type="text" maxlength={500} autocomplete="off" />
              </div>
            </div>
          ))}
        </fieldset>
        <fieldset>
          <legend>Then</legend>
          <ActionFields type={props.type} people={props.people} />
        </fieldset>
        <div class="actions">
          <button type="submit">Add the rule</button>
        </div>
      </form>
    </section>
  );
}

const isActionType = (t: string | undefined): t is ActionType => ACTION_TYPES.includes(t as ActionType);

export async function automationPage(c: CC): Promise<Response> {
  const query = { cursor: c.req.query("cursor") || undefined };
  const chosen = c.req.query("action");
  const manager = can(c, "manager");
  const adding = manager && isActionType(chosen);
  const [tenant, list, csrf, locations, people] = await Promise.all([
    tenantOf(c),
    callOperation<Page<Rule>>(c, listAutomationRulesOperation, { query: { ...query, limit: "50" } }),
    csrfOf(c),
    adding ? callOperation<Page<Location>>(c, listLocationsOperation, { query: { limit: "200" } }) : null,
    adding && chosen === "assign_inbox"
      ? callOperation<Page<TenantUserDto>>(c, listUsersOperation, { query: { limit: "200" } })
      : null,
  ]);
  const base = ruleHref(c);
  return page(
    c,
    { title: "Automation", section: "automation", tenant },
    <>
      <h1>Automation</h1>
      <p class="muted">
        A rule acts on its own when an event happens: a negative review emails the manager, a new review gets a tag, a
        published reply calls your CRM.
      </p>
      {list.data.length === 0 ? (
        <p class="card">
          No rule yet.{" "}
          {manager ? "Add one below: first choose what it should do." : "A manager of this business adds them."}
        </p>
      ) : (
        <table class="rows">
          <caption>Rules ({list.total})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">When</th>
              <th scope="col">Does</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((r) => (
              <tr>
                <th scope="row" data-label="Name">
                  <a href={ruleHref(c, r.id)}>{r.name}</a>
                </th>
                <td data-label="When">
                  <code>{r.triggerEventType}</code>
                  {r.conditions.length > 0 && (
                    <span class="muted small">
                      {" "}
                      and {r.conditions.length} condition{r.conditions.length === 1 ? "" : "s"}
                    </span>
                  )}
                </td>
                <td data-label="Does">{r.actions.map((a) => actionLabel(a.type)).join("; ")}</td>
                <td data-label="State">
                  <span class={r.isActive ? "status ok" : "status"}>{r.isActive ? "Active" : "Paused"}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={base}
        params={{}}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!query.cursor}
      />
      {manager &&
        (adding ? (
          <RuleForm
            type={chosen}
            action={base}
            back={base}
            csrf={csrf}
            locations={locations?.data ?? []}
            people={(people?.data ?? []).filter((u) => u.isActive).map((u) => ({ id: u.id, name: u.name || u.email }))}
          />
        ) : (
          <ChooseAction action={base} />
        ))}
    </>,
  );
}

/** One rule: what it does, and its recent runs with each action's outcome (keyset pages). */
async function rulePage(c: CC, id: string, rule?: Rule & { signingSecret?: string }, flash?: Flash): Promise<Response> {
  const query = { cursor: c.req.query("cursor") || undefined };
  const [tenant, r, runs, csrf] = await Promise.all([
    tenantOf(c),
    rule ?? callOperation<Rule>(c, getAutomationRuleOperation, { params: { id } }),
    callOperation<Page<Run>>(c, listAutomationRuleRunsOperation, { params: { id }, query: { ...query, limit: "25" } }),
    csrfOf(c),
  ]);
  const base = ruleHref(c, r.id);
  const manager = can(c, "manager");
  return page(
    c,
    { title: r.name, section: "automation", tenant, flash },
    <>
      <p>
        <a href={ruleHref(c)}>All rules</a>
      </p>
      <h1>{r.name}</h1>
      {rule?.signingSecret && (
        <ShownOnce
          id="rule-secret"
          title="The rule's signing secret"
          label="Signing secret"
          value={rule.signingSecret}
          copy="Copy the secret"
          copied="Secret copied to the clipboard."
        >
          <p class="muted small">The URL the rule calls checks each request's signature with it.</p>
        </ShownOnce>
      )}
      <dl class="facts">
        <dt>When</dt>
        <dd>
          <code>{r.triggerEventType}</code>
        </dd>
        <dt>Only if</dt>
        <dd>
          {r.conditions.length === 0
            ? "always"
            : r.conditions.map((k, i) => (
                <>
                  {i > 0 && " and "}
                  <code>{k.field}</code> {OP_LABEL[k.op].replace(" (comma-separated)", "")}{" "}
                  <code>{valueText(k.value)}</code>
                </>
              ))}
        </dd>
        <dt>Then</dt>
        <dd>
          <ul class="meta">
            {r.actions.map((a) => (
              <li>
                {actionLabel(a.type)}: {actionSummary(a)}
              </li>
            ))}
          </ul>
        </dd>
        <dt>State</dt>
        <dd>
          <span class={r.isActive ? "status ok" : "status"}>{r.isActive ? "Active" : "Paused"}</span>
        </dd>
      </dl>
      {manager && (
        <div class="actions">
          <form method="post" action={`${base}/active`}>
            <Csrf token={csrf} />
            <input type="hidden" name="isActive" value={r.isActive ? "false" : "true"} />
            <button type="submit" class="secondary">
              {r.isActive ? "Pause the rule" : "Resume the rule"}
            </button>
          </form>
          <form method="post" action={`${base}/delete`}>
            <Csrf token={csrf} />
            <button type="submit" class="danger">
              Delete the rule
            </button>
          </form>
        </div>
      )}
      {runs.data.length === 0 ? (
        <p class="card">No run yet: the rule runs when a {r.triggerEventType} event happens.</p>
      ) : (
        <table class="rows">
          <caption>Recent runs ({runs.total}), newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">Outcome</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.map((run) => (
              <tr>
                <th scope="row" data-label="When">
                  <When iso={run.createdAt} />
                </th>
                <td data-label="Event">
                  <code>{run.eventType}</code>
                </td>
                <td data-label="Outcome">
                  <span class={OUTCOME_TONE[run.outcome]}>{run.outcome}</span>
                  {run.error && <p class="small">{run.error}</p>}
                </td>
                <td data-label="Actions">
                  <ul class="meta">
                    {run.actions.map((a) => (
                      <li>
                        {actionLabel(a.type)}: {a.outcome}
                        {a.error ? ` (${a.error})` : ""}
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={base}
        params={{}}
        endCursor={runs.pageInfo.endCursor}
        hasNext={runs.pageInfo.hasNextPage}
        isFirst={!query.cursor}
      />
    </>,
  );
}

export const automationRulePage = (c: CC) => rulePage(c, c.req.param("ruleId") ?? "");

// ---- the forms: each calls its REST operation (manager, checked there before anything else)

const ruleId = (c: CC) => c.req.param("ruleId") ?? "";

const commaList = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** A form value as the JSON REST takes: a number or true/false where the trigger's field is one. */
function conditionValue(trigger: string, field: string, op: string, raw: string): unknown {
  const kind = isEventType(trigger) ? payloadFields(trigger as EventType).get(field) : undefined;
  const typed = (v: string): unknown => {
    if (v === "null") return null;
    if (kind?.type === "number" && v !== "" && Number.isFinite(Number(v))) return Number(v);
    if (kind?.type === "boolean" && (v === "true" || v === "false")) return v === "true";
    return v;
  };
  return op === "in" ? commaList(raw).map(typed) : typed(raw.trim());
}

/** The chosen action's fields as the action's config (ACTION_CONFIGS' shape; the schema checks them). */
function actionOf(type: string, one: (name: string) => string): Record<string, unknown> {
  const optional = (name: string) => one(name).trim() || undefined;
  switch (type) {
    case "notify_email":
      return {
        to: commaList(one("to")).length ? commaList(one("to")) : undefined,
        toRole: optional("toRole"),
        subject: one("subject"),
        text: one("text"),
      };
    case "assign_inbox":
      return { userId: one("userId") };
    case "add_tags":
      return { tags: commaList(one("tags")) };
    case "create_response_draft":
      return { mode: one("mode"), text: optional("text") };
    case "send_solicitation":
      return { channel: one("channel") };
    case "send_webhook":
      return { url: one("url") };
    case "create_recommendation":
      return {
        type: one("type"),
        title: one("title"),
        description: optional("description"),
        priority: one("priority"),
      };
    default:
      return {};
  }
}

/** REST: POST /v1/automation-rules. A rule that calls a URL answers its page with the secret, shown once. */
export async function createRuleSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const type = form.one("action");
  return act(c, `${ruleHref(c)}?action=${encodeURIComponent(type)}`, async () => {
    const trigger = form.one("triggerEventType");
    const [fields, ops, values] = [form.all("field"), form.all("op"), form.all("value")];
    const conditions = fields.flatMap((field, i) =>
      field.trim()
        ? [
            {
              field: field.trim(),
              op: ops[i] ?? "eq",
              value: conditionValue(trigger, field.trim(), ops[i] ?? "eq", values[i] ?? ""),
            },
          ]
        : [],
    );
    const created = await callOperation<RuleWithSecret>(c, createAutomationRuleOperation, {
      body: {
        name: form.one("name"),
        triggerEventType: trigger,
        locationId: form.one("locationId") || null,
        conditions,
        actions: [{ type, config: actionOf(type, form.one) }],
      },
    });
    const notice: Flash = { kind: "notice", text: `The rule “${created.name}” is active.` };
    if (!created.signingSecret) return redirectTo(c, ruleHref(c, created.id), notice);
    return rulePage(c, created.id, created, notice);
  });
}

/** REST: PATCH /v1/automation-rules/{id} {isActive}. */
export async function ruleActiveSubmit(c: CC): Promise<Response> {
  const back = ruleHref(c, ruleId(c));
  return act(c, back, async () => {
    const form = await formOf(c);
    const after = await callOperation<Rule>(c, updateAutomationRuleOperation, {
      params: { id: ruleId(c) },
      body: { isActive: form.one("isActive") === "true" },
    });
    return redirectTo(c, back, {
      kind: "notice",
      text: after.isActive
        ? `“${after.name}” runs again.`
        : `“${after.name}” is paused: it does nothing until resumed.`,
    });
  });
}

/** REST: DELETE /v1/automation-rules/{id}. */
export async function deleteRuleSubmit(c: CC): Promise<Response> {
  return act(c, ruleHref(c, ruleId(c)), async () => {
    const r = await callOperation<Rule>(c, getAutomationRuleOperation, { params: { id: ruleId(c) } });
    await callOperation(c, deleteAutomationRuleOperation, { params: { id: r.id } });
    return redirectTo(c, ruleHref(c), { kind: "notice", text: `The rule “${r.name}” and its run log are deleted.` });
  });
}
