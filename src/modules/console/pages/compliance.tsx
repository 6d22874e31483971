/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { BLOCKED_REASONS, type BlockedReason, MESSAGE_CHANNELS } from "../../../db/schema";
import { callOperation } from "../../../lib/operation-route";
import { getComplianceSettingsOperation, updateComplianceSettingsOperation } from "../../compliance/operations";
import type { ComplianceConfig } from "../../compliance/schemas";
import { listRefusalsOperation } from "../../solicitations/operations";
import type { RefusalPageSchema } from "../../solicitations/schemas";
import { FilterSelect, tenantHref, tenantOf, When } from "../atoms";
import { numberOrUndefined, ticked, withLabels } from "../form-values";
import { act, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";
import { ListPager } from "../places";
import { CHANNEL_LABEL, channelName, REASON_LABEL, refusalSentence } from "../solicitation-words";
import { contactName } from "./contacts";

/*
 * Compliance (docs/console.md "Contacts", issue #46 item 2): the rules the sending policy applies to every
 * review request (GET /v1/compliance: quiet hours, how often a person may be asked, which channels need a
 * recorded consent, and the data rights settings), changed by a tenant admin (PUT /v1/compliance: REST's
 * canAdminister and its body schema, every field sent), and what the policy refused lately with its reasons
 * (GET /v1/compliance/refusals: the count per reason over the last 30 days and the refusals in keyset pages
 * of 25, filtered by reason and channel).
 */

type Refusals = z.infer<typeof RefusalPageSchema>;

/** The settings' fields as the form labels them (a refusal names the label). */
const LABELS: Record<keyof ComplianceConfig, string> = {
  quietHoursStart: "Quiet from",
  quietHoursEnd: "Quiet until",
  frequencyCapDaily: "At most per 24 hours",
  frequencyCapWeekly: "At most per 7 days",
  requireEmailConsent: "Email needs a recorded consent",
  requireSmsOptIn: "SMS needs a recorded opt-in",
  requireDoubleOptIn: "Double opt-in",
  healthcareSafeMode: "Healthcare safe mode",
  retentionDays: "Keep a contact's data for (days)",
  allowDataExport: "Allow data exports",
  allowDataDeletion: "Allow erasing a contact",
};

const CHECKS: (keyof ComplianceConfig)[] = [
  "requireEmailConsent",
  "requireSmsOptIn",
  "requireDoubleOptIn",
  "healthcareSafeMode",
  "allowDataExport",
  "allowDataDeletion",
];
const NUMBERS: (keyof ComplianceConfig)[] = ["frequencyCapDaily", "frequencyCapWeekly", "retentionDays"];

const yes = (on: boolean) => (on ? "on" : "off");

function quietText(s: ComplianceConfig): string {
  if (s.quietHoursStart === s.quietHoursEnd) return "None: requests may go out at any hour.";
  return `From ${s.quietHoursStart} to ${s.quietHoursEnd} in the contact's time zone (else the location's, else UTC), no request is sent: one made then is refused, not held back.`;
}

const capText = (n: number, span: string) =>
  n === 0 ? `No one may be asked in ${span} (0 blocks every request).` : `At most ${n} per person in ${span}.`;

function Check(props: { name: keyof ComplianceConfig; on: boolean; help: string }) {
  const id = `set-${props.name}`;
  return (
    <>
      <label class="check" for={id}>
        <input id={id} type="checkbox" name={props.name} value="true" checked={props.on} />
        <span>{LABELS[props.name]}</span>
      </label>
      <p class="muted small">{props.help}</p>
    </>
  );
}

function NumberField(props: { name: keyof ComplianceConfig; value: number; min: number; max: number }) {
  const id = `set-${props.name}`;
  return (
    <>
      <label for={id}>{LABELS[props.name]}</label>
      <input id={id} name={props.name} type="number" min={props.min} max={props.max} value={String(props.value)} />
    </>
  );
}

function SettingsForm(props: { s: ComplianceConfig; action: string; csrf: string; admin: boolean }) {
  const { s } = props;
  return (
    <form method="post" action={props.action}>
      <Csrf token={props.csrf} />
      <fieldset disabled={!props.admin}>
        <legend>Quiet hours</legend>
        <label for="set-quietHoursStart">{LABELS.quietHoursStart}</label>
        <input id="set-quietHoursStart" name="quietHoursStart" type="time" value={s.quietHoursStart} required />
        <label for="set-quietHoursEnd">{LABELS.quietHoursEnd}</label>
        <input id="set-quietHoursEnd" name="quietHoursEnd" type="time" value={s.quietHoursEnd} required />
        <p class="muted small">The same time in both means no quiet hours.</p>
      </fieldset>
      <fieldset disabled={!props.admin}>
        <legend>How often a person may be asked (any channel)</legend>
        <NumberField name="frequencyCapDaily" value={s.frequencyCapDaily} min={0} max={100} />
        <NumberField name="frequencyCapWeekly" value={s.frequencyCapWeekly} min={0} max={500} />
      </fieldset>
      <fieldset disabled={!props.admin}>
        <legend>Consent</legend>
        <Check
          name="requireEmailConsent"
          on={s.requireEmailConsent}
          help="Off: email may go to anyone not opted out. An opt-out always stops a channel."
        />
        <Check name="requireSmsOptIn" on={s.requireSmsOptIn} help="WhatsApp always needs a recorded opt-in." />
        <Check
          name="requireDoubleOptIn"
          on={s.requireDoubleOptIn}
          help="Kept with your settings; requests do not check it yet."
        />
      </fieldset>
      <fieldset disabled={!props.admin}>
        <legend>Data</legend>
        <NumberField name="retentionDays" value={s.retentionDays} min={90} max={2190} />
        <p class="muted small">
          A contact with no activity for this long (no import, change or consent) is anonymised. 90 to 2,190.
        </p>
        <Check
          name="allowDataExport"
          on={s.allowDataExport}
          help="A contact's data export and the business's data export."
        />
        <Check
          name="allowDataDeletion"
          on={s.allowDataDeletion}
          help="Erasing a contact's personal data when they ask."
        />
        <Check
          name="healthcareSafeMode"
          on={s.healthcareSafeMode}
          help="Kept with your settings; requests do not check it yet."
        />
      </fieldset>
      {props.admin && (
        <div class="actions">
          <button type="submit">Save the rules</button>
        </div>
      )}
    </form>
  );
}

/** The query a refusals filter or page link carries (GET /v1/compliance/refusals's names). */
const FILTERS = ["blockedReason", "channel"] as const;

export async function compliancePage(c: CC): Promise<Response> {
  const f: Record<string, string | undefined> = Object.fromEntries(
    FILTERS.map((k) => [k, c.req.query(k) || undefined]),
  );
  const cursor = c.req.query("cursor") || undefined;
  const [tenant, settings, refusals, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<ComplianceConfig>(c, getComplianceSettingsOperation),
    callOperation<Refusals>(c, listRefusalsOperation, { query: { ...f, cursor, limit: "25" } }),
    csrfOf(c),
  ]);
  const admin = can(c, "tenant_admin");
  const base = tenantHref(c, "/compliance");
  const counted = BLOCKED_REASONS.filter((r) => refusals.byReason[r] > 0);
  const reasonHref = (r: BlockedReason) => `${base}?blockedReason=${r}#refusals`;
  return page(
    c,
    { title: "Compliance", section: "compliance", tenant },
    <>
      <h1>Compliance</h1>
      <p>Every review request is checked against these rules; one they refuse is not sent, and is listed below.</p>
      <section class="card" aria-labelledby="rules">
        <h2 id="rules">The rules now</h2>
        <dl class="facts">
          <dt>Quiet hours</dt>
          <dd>{quietText(settings)}</dd>
          <dt>Per day</dt>
          <dd>{capText(settings.frequencyCapDaily, "24 hours")}</dd>
          <dt>Per week</dt>
          <dd>{capText(settings.frequencyCapWeekly, "7 days")}</dd>
          <dt>{CHANNEL_LABEL.email}</dt>
          <dd>
            {settings.requireEmailConsent
              ? "Only to contacts with a recorded email consent."
              : "To every contact with an email address who has not opted out."}
          </dd>
          <dt>{CHANNEL_LABEL.sms}</dt>
          <dd>
            {settings.requireSmsOptIn
              ? "Only to contacts with a recorded SMS opt-in."
              : "To every contact with a phone number who has not opted out."}
          </dd>
          <dt>{CHANNEL_LABEL.whatsapp}</dt>
          <dd>Only to contacts with a recorded WhatsApp opt-in (WhatsApp's own rule).</dd>
          <dt>Suppressed contacts</dt>
          <dd>Never asked, on any channel.</dd>
          <dt>Data</dt>
          <dd>
            Kept {settings.retentionDays.toLocaleString("en-US")} days after a contact's last activity; exports{" "}
            {yes(settings.allowDataExport)}, erasing {yes(settings.allowDataDeletion)}.
          </dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="change">
        <h2 id="change">{admin ? "Change the rules" : "Settings"}</h2>
        {!admin && <p class="muted">An admin of this business changes these.</p>}
        <SettingsForm s={settings} action={base} csrf={csrf} admin={admin} />
      </section>

      <section aria-labelledby="refusals">
        <h2 id="refusals">Refused lately</h2>
        <p class="muted small">
          Since <When iso={refusals.range.from} /> (30 days): review requests these rules did not let go out.
        </p>
        {counted.length === 0 ? (
          <p class="card">Nothing was refused in the last 30 days.</p>
        ) : (
          <table class="rows">
            <caption>Refusals per reason</caption>
            <thead>
              <tr>
                <th scope="col">Reason</th>
                <th scope="col">Requests</th>
              </tr>
            </thead>
            <tbody>
              {counted.map((r) => (
                <tr>
                  <th scope="row" data-label="Reason">
                    <a href={reasonHref(r)}>{REASON_LABEL[r]}</a>
                  </th>
                  <td data-label="Requests">{refusals.byReason[r].toLocaleString("en-US")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <form method="get" action={`${base}#refusals`} class="filters" aria-label="Filter the refusals">
          <FilterSelect
            id="blockedReason"
            label="Reason"
            value={f.blockedReason}
            options={[["", "Every reason"], ...BLOCKED_REASONS.map((r): [string, string] => [r, REASON_LABEL[r]])]}
          />
          <FilterSelect
            id="channel"
            label="Channel"
            value={f.channel}
            options={[
              ["", "Every channel"],
              ...MESSAGE_CHANNELS.map((ch): [string, string] => [ch, CHANNEL_LABEL[ch]]),
            ]}
          />
          <div class="actions">
            <button type="submit" class="secondary">
              Filter
            </button>
          </div>
        </form>
        {refusals.data.length > 0 && (
          <table class="rows">
            <caption>Refused requests ({refusals.total.toLocaleString("en-US")}), newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Contact</th>
                <th scope="col">Channel</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {refusals.data.map((s) => (
                <tr>
                  <th scope="row" data-label="When">
                    <When iso={s.createdAt} />
                  </th>
                  <td data-label="Contact">
                    <a href={tenantHref(c, `/contacts/${encodeURIComponent(s.contact.id)}`)}>
                      {contactName(s.contact)}
                    </a>
                  </td>
                  <td data-label="Channel">{channelName(s.channel)}</td>
                  <td data-label="Why">{s.blockedReason ? refusalSentence(s.blockedReason, s.channel) : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {refusals.data.length === 0 && counted.length > 0 && <p class="card">None under these filters.</p>}
        <ListPager base={base} list={refusals} cursor={cursor} params={f} />
      </section>
    </>,
  );
}

/** REST: PUT /v1/compliance (tenant_admin) through its operation, every field as the form shows it. */
export async function complianceSubmit(c: CC): Promise<Response> {
  const back = tenantHref(c, "/compliance");
  return act(c, back, () =>
    withLabels(LABELS, async () => {
      const form = await formOf(c);
      const after = await callOperation<ComplianceConfig>(c, updateComplianceSettingsOperation, {
        body: {
          quietHoursStart: form.one("quietHoursStart"),
          quietHoursEnd: form.one("quietHoursEnd"),
          ...Object.fromEntries(NUMBERS.map((k) => [k, numberOrUndefined(form.one(k))])),
          ...Object.fromEntries(CHECKS.map((k) => [k, ticked(form.one(k))])),
        },
      });
      return redirectTo(c, back, {
        kind: "notice",
        text: `The rules are saved. Quiet hours: ${quietText(after)}`,
      });
    }),
  );
}
