/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { CONSENT_CHANNELS, type ConsentChannel, MESSAGE_CHANNELS } from "../../../db/schema";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { canAdminister, canWrite } from "../../../middleware/tenant";
import { getComplianceSettingsOperation } from "../../compliance/operations";
import type { ComplianceConfig } from "../../compliance/schemas";
import {
  eraseContactOperation,
  getContactOperation,
  grantContactConsentOperation,
  listContactConsentOperation,
  revokeContactConsentOperation,
  suppressContactOperation,
  unsuppressContactOperation,
} from "../../contacts/operations";
import type { ConsentRecordSchema } from "../../contacts/schemas";
import { listContactSolicitationsOperation } from "../../solicitations/operations";
import { evaluateAtSend } from "../../solicitations/policy";
import type { SolicitationWithContactSchema } from "../../solicitations/schemas";
import { findScopedTenant } from "../../tenants/service";
import { tenantHref, When } from "../atoms";
import { blankToUndefined, withLabels } from "../form-values";
import { act, asRest, type CC, can, csrfOf, formOf, page, type Refusals, redirectTo, tenantInFrame } from "../kit";
import { Csrf } from "../layout";
import { ButtonForm, FormCard, ListPager } from "../places";
import { CHANNEL_LABEL, channelName, refusalSentence, STATUS_LABEL } from "../solicitation-words";
import { type Contact, ContactState, contactName, isErased } from "./contacts";

/*
 * A contact's page (docs/console.md "Contacts", issue #46 item 2): the contact (GET /v1/contacts/{id}), whether
 * each channel may carry a review request now (consent per channel from GET /v1/contacts/{id}/consent, judged by
 * the sending policy's own standing rules, solicitations/policy.ts evaluateAtSend, under GET /v1/compliance), the
 * consent history, the suppression, and the message history (GET /v1/contacts/{id}/solicitations: each request
 * with its channel, state, times and why it failed or was refused). Its forms: record a consent (POST
 * .../consent), an opt-out (DELETE .../consent/{channel}), suppress (POST .../suppress) or lift it (DELETE
 * .../suppress), and erase the personal data (DELETE /v1/contacts/{id}, tenant_admin) after ticking "I
 * understand". Each read and form calls its REST operation (callOperation: REST's role check and schemas). Two
 * calls have no operation: the tenant's row (findScopedTenant, as the layout's tenantOf reads it: its name, and
 * whether it is paused, which the policy judges) and the policy's own standing rules (evaluateAtSend, a pure
 * function of what the operations answered).
 */

type ConsentRecord = z.infer<typeof ConsentRecordSchema>;
type Solicitation = z.infer<typeof SolicitationWithContactSchema>;

const contactId = (c: CC) => c.req.param("contactId") ?? "";
/** the contact of the page's path, as the operations' path parameter */
const contactParams = (c: CC) => ({ params: { id: contactId(c) } });
const getContact = (c: CC) => callOperation<Contact>(c, getContactOperation, contactParams(c));
const contactHref = (c: CC, rest = "") => tenantHref(c, `/contacts/${encodeURIComponent(contactId(c))}${rest}`);

/** The services' refusals (details.reason) as this page words them. */
const REFUSALS: Refusals = {
  deletion_disabled:
    "Erasing contacts is switched off in this business's compliance settings (allow data deletion); an admin turns it on there.",
};

/** The latest consent record per channel (GET .../consent is oldest first; the latest per channel is current). */
function currentOf(history: ConsentRecord[]): Partial<Record<ConsentChannel, ConsentRecord>> {
  const now: Partial<Record<ConsentChannel, ConsentRecord>> = {};
  for (const r of history) now[r.channel] = r;
  return now;
}

const CONSENT_WORD = { granted: "Granted", revoked: "Opted out", pending: "Waiting for confirmation" } as const;
const CONSENT_TONE = { granted: "status ok", revoked: "status bad", pending: "status warn" } as const;

/** Whether the policy's standing rules (pause, suppression, address, consent) let a request go on `channel`. */
function standing(
  channel: (typeof MESSAGE_CHANNELS)[number],
  o: { active: boolean; contact: Contact; current: ReturnType<typeof currentOf>; compliance: ComplianceConfig },
) {
  return evaluateAtSend({
    tenant: { isActive: o.active },
    contact: o.contact,
    consent: o.current,
    compliance: o.compliance,
    channel,
  });
}

function MessageTimes(props: { s: Solicitation }) {
  const steps: [string, string | null][] = [
    ["Sent", props.s.sentAt],
    ["Delivered", props.s.deliveredAt],
    ["Opened the link", props.s.clickedAt],
    ["Reviewed", props.s.convertedAt],
  ];
  const happened = steps.filter(([, at]) => at);
  if (happened.length === 0) return <span class="muted">nothing yet</span>;
  return (
    <ul class="meta">
      {happened.map(([what, at]) => (
        <li>
          {what} <When iso={at} />
        </li>
      ))}
    </ul>
  );
}

function whyText(s: Solicitation): string | null {
  if (s.blockedReason) return refusalSentence(s.blockedReason, s.channel);
  if (s.failureReason) return s.failureReason;
  if (s.deliveryOutcome === "unknown")
    return "The provider was called but its answer was lost: it may have gone out. It is not sent again.";
  return null;
}

export async function contactPage(c: CC): Promise<Response> {
  const cursor = c.req.query("cursor") || undefined;
  const contact = await getContact(c);
  const [row, history, compliance, messages, csrf] = await Promise.all([
    findScopedTenant(c.var.control, "all", c.var.access.tenantId),
    callOperation<ConsentRecord[]>(c, listContactConsentOperation, { params: { id: contact.id } }),
    callOperation<ComplianceConfig>(c, getComplianceSettingsOperation),
    callOperation<Page<Solicitation>>(c, listContactSolicitationsOperation, {
      params: { id: contact.id },
      query: { cursor, limit: "25" },
    }),
    csrfOf(c),
  ]);
  const current = currentOf(history);
  const erased = isErased(contact);
  const writer = can(c, "tenant_user") && !erased;
  const admin = can(c, "tenant_admin");
  const name = contactName(contact);
  const externalIds = Object.entries(contact.externalIds);
  const otherChannels = CONSENT_CHANNELS.filter((ch) => !(MESSAGE_CHANNELS as readonly string[]).includes(ch));
  const channels = [...MESSAGE_CHANNELS, ...otherChannels.filter((ch) => current[ch])];
  return page(
    c,
    { title: name, section: "contacts", tenant: tenantInFrame(c, row.name) },
    <>
      <p class="small">
        <a href={tenantHref(c, "/contacts")}>All contacts</a>
      </p>
      <h1>{name}</h1>
      <p>
        <ContactState c={contact} />
      </p>
      {erased && (
        <p class="warnbox">
          This contact's personal data was erased
          {contact.suppressedAt ? (
            <>
              {" "}
              (suppressed since <When iso={contact.suppressedAt} />)
            </>
          ) : null}
          . The row stays so counts add up; no request can reach it again.
        </p>
      )}
      <section class="card" aria-labelledby="details">
        <h2 id="details">Details</h2>
        <dl class="facts">
          <dt>Email</dt>
          <dd>{contact.email ?? <span class="muted">none</span>}</dd>
          <dt>Phone</dt>
          <dd>{contact.phone ?? <span class="muted">none</span>}</dd>
          <dt>Name</dt>
          <dd>{[contact.firstName, contact.lastName].filter(Boolean).join(" ") || <span class="muted">none</span>}</dd>
          <dt>Language</dt>
          <dd>{contact.locale ?? <span class="muted">not set</span>}</dd>
          <dt>Time zone</dt>
          <dd>{contact.timezone ?? <span class="muted">not set: the location's is used for quiet hours</span>}</dd>
          {externalIds.map(([k, v]) => (
            <>
              <dt>Id in {k}</dt>
              <dd>{typeof v === "string" ? v : JSON.stringify(v)}</dd>
            </>
          ))}
          <dt>Added</dt>
          <dd>
            <When iso={contact.createdAt} />
          </dd>
          <dt>Last changed</dt>
          <dd>
            <When iso={contact.updatedAt} />
          </dd>
        </dl>
      </section>

      <section class="card" aria-labelledby="consent">
        <h2 id="consent">Consent and review requests</h2>
        <table class="rows">
          <caption>Per channel</caption>
          <thead>
            <tr>
              <th scope="col">Channel</th>
              <th scope="col">Consent</th>
              <th scope="col">Can be asked for a review</th>
              {writer && <th scope="col">Change</th>}
            </tr>
          </thead>
          <tbody>
            {channels.map((ch) => {
              const now = current[ch];
              const decision = (MESSAGE_CHANNELS as readonly string[]).includes(ch)
                ? standing(ch as (typeof MESSAGE_CHANNELS)[number], {
                    active: row.isActive,
                    contact,
                    current,
                    compliance,
                  })
                : null;
              return (
                <tr>
                  <th scope="row" data-label="Channel">
                    {CHANNEL_LABEL[ch]}
                  </th>
                  <td data-label="Consent">
                    {now ? (
                      <>
                        <span class={CONSENT_TONE[now.status]}>{CONSENT_WORD[now.status]}</span>{" "}
                        <span class="small">
                          <When iso={now.createdAt} /> ({now.source})
                        </span>
                      </>
                    ) : (
                      <span class="muted">none recorded</span>
                    )}
                  </td>
                  <td data-label="Can be asked for a review">
                    {!decision ? (
                      <span class="muted">not a review request channel</span>
                    ) : decision.allowed ? (
                      <span class="status ok">Yes</span>
                    ) : (
                      <>
                        <span class="status bad">No</span> {refusalSentence(decision.blockedReason, ch)}
                      </>
                    )}
                  </td>
                  {writer && (
                    <td data-label="Change">
                      {now?.status !== "revoked" && (
                        <ButtonForm
                          action={contactHref(c, `/consent/${ch}/revoke`)}
                          csrf={csrf}
                          label="Record an opt-out"
                          name={CHANNEL_LABEL[ch]}
                        />
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
        <p class="muted small">
          Quiet hours and your limits on how often a person is asked are checked when a request is made (
          <a href={tenantHref(c, "/compliance")}>Compliance</a>).
        </p>
        {history.length > 0 && (
          <details>
            <summary>Consent history ({history.length})</summary>
            <ol class="history">
              {history.map((r) => (
                <li>
                  <When iso={r.createdAt} />: {channelName(r.channel)} {CONSENT_WORD[r.status].toLowerCase()} (
                  {r.source})
                </li>
              ))}
            </ol>
          </details>
        )}
      </section>
      {writer && (
        <FormCard
          id="record-consent"
          title="Record a consent"
          action={contactHref(c, "/consent")}
          csrf={csrf}
          button="Record the consent"
        >
          <label for="consent-channel">Channel</label>
          <select id="consent-channel" name="channel">
            {CONSENT_CHANNELS.map((ch) => (
              <option value={ch}>{CHANNEL_LABEL[ch]}</option>
            ))}
          </select>
          <label for="consent-source">How they agreed</label>
          <input
            id="consent-source"
            name="source"
            type="text"
            required
            maxlength={200}
            autocomplete="off"
            aria-describedby="consent-source-help"
          />
          <p id="consent-source-help" class="muted small">
            Kept as the proof, e.g. “signed the intake form on May 2” or “said yes at the front desk”.
          </p>
        </FormCard>
      )}

      <section class="card" aria-labelledby="suppression">
        <h2 id="suppression">Suppression</h2>
        {contact.isSuppressed ? (
          <>
            <p>
              Suppressed since <When iso={contact.suppressedAt} />
              {contact.suppressionReason ? `: ${contact.suppressionReason}` : ""}. No review request goes to them on any
              channel.
            </p>
            {writer && (
              <div class="actions">
                <ButtonForm action={contactHref(c, "/unsuppress")} csrf={csrf} label="Lift the suppression" />
              </div>
            )}
          </>
        ) : (
          <>
            <p>
              Not suppressed. Suppress a contact who asks not to be contacted: no request goes to them on any channel.
            </p>
            {writer && (
              <form method="post" action={contactHref(c, "/suppress")}>
                <Csrf token={csrf} />
                <label for="suppress-reason">Why (optional, kept in the audit log)</label>
                <input id="suppress-reason" name="reason" type="text" maxlength={500} autocomplete="off" />
                <div class="actions">
                  <button type="submit" class="danger">
                    Suppress
                  </button>
                </div>
              </form>
            )}
          </>
        )}
      </section>

      <section aria-labelledby="messages">
        <h2 id="messages">Messages</h2>
        {messages.total === 0 ? (
          <p class="card">No review request has been made to this contact yet.</p>
        ) : (
          <table class="rows">
            <caption>Review requests ({messages.total}), newest first</caption>
            <thead>
              <tr>
                <th scope="col">Asked</th>
                <th scope="col">Channel</th>
                <th scope="col">State</th>
                <th scope="col">What happened</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {messages.data.map((s) => (
                <tr>
                  <th scope="row" data-label="Asked">
                    <When iso={s.createdAt} />
                  </th>
                  <td data-label="Channel">{channelName(s.channel)}</td>
                  <td data-label="State">
                    <span class={STATUS_LABEL[s.status].tone}>{STATUS_LABEL[s.status].text}</span>
                  </td>
                  <td data-label="What happened">
                    <MessageTimes s={s} />
                  </td>
                  <td data-label="Why">{whyText(s) ?? <span class="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <ListPager base={contactHref(c)} list={messages} cursor={cursor} />
      </section>

      {!erased && (
        <section class="card" aria-labelledby="erase">
          <h2 id="erase">Erase their personal data</h2>
          <p>
            For a person who asks to be forgotten: their email, phone, name, language, time zone and ids are wiped for
            good, consent records keep only channel, state and time, and they stay suppressed. Their requests and
            reviews stay, without them. This cannot be undone.
          </p>
          {!admin ? (
            <p class="muted">An admin of this business erases a contact.</p>
          ) : !compliance.allowDataDeletion ? (
            <p class="muted">
              Erasing is switched off in this business's <a href={tenantHref(c, "/compliance")}>compliance settings</a>.
            </p>
          ) : (
            <form method="post" action={contactHref(c, "/erase")}>
              <Csrf token={csrf} />
              <label class="check" for="erase-understand">
                <input id="erase-understand" type="checkbox" name="understand" value="yes" required />
                <span>I understand that {name}'s personal data is erased for good</span>
              </label>
              <div class="actions">
                <button type="submit" class="danger">
                  Erase
                </button>
              </div>
            </form>
          )}
        </section>
      )}
    </>,
  );
}

/**
 * A contact's form: REST's role check first (as REST's middleware runs it, before anything else), the contact
 * read (another tenant's is the 404 page, before the form is judged), then the action's operation.
 */
const contactAction = (c: CC, check: Parameters<typeof asRest>[1], run: () => Promise<Response>) =>
  act(
    c,
    contactHref(c),
    async () => {
      await asRest(c, check);
      await getContact(c);
      return run();
    },
    REFUSALS,
  );

/** REST: POST /v1/contacts/{id}/suppress (its operation: tenant_user, the body's schema). */
export const suppressSubmit = (c: CC) =>
  contactAction(c, canWrite, async () => {
    const reason = blankToUndefined((await formOf(c)).one("reason"));
    const after = await callOperation<Contact>(c, suppressContactOperation, {
      ...contactParams(c),
      body: reason === undefined ? {} : { reason },
    });
    return redirectTo(c, contactHref(c), {
      kind: "notice",
      text: `${contactName(after)} is suppressed: no review request goes to them now.`,
    });
  });

/** REST: DELETE /v1/contacts/{id}/suppress (unsuppressContact). */
export const unsuppressSubmit = (c: CC) =>
  contactAction(c, canWrite, async () => {
    const after = await callOperation<Contact>(c, unsuppressContactOperation, contactParams(c));
    return redirectTo(c, contactHref(c), {
      kind: "notice",
      text: `${contactName(after)} is no longer suppressed; their consent per channel still applies.`,
    });
  });

/**
 * REST: POST /v1/contacts/{id}/consent (grantContactConsent; no IP or browser: the staff's own would prove
 * nothing). Its body schema's refusals name the form's labels.
 */
export const grantConsentSubmit = (c: CC) =>
  contactAction(c, canWrite, async () => {
    const form = await formOf(c);
    const granted = await withLabels({ channel: "Channel", source: "How they agreed" }, () =>
      callOperation<ConsentRecord>(c, grantContactConsentOperation, {
        ...contactParams(c),
        body: { channel: form.one("channel"), source: form.one("source") },
      }),
    );
    return redirectTo(c, contactHref(c), {
      kind: "notice",
      text: `${CHANNEL_LABEL[granted.channel]} consent is recorded.`,
    });
  });

/** REST: DELETE /v1/contacts/{id}/consent/{channel} (revokeContactConsent: its path schema judges the channel). */
export const revokeConsentSubmit = (c: CC) =>
  contactAction(c, canWrite, async () => {
    const revoked = await callOperation<ConsentRecord>(c, revokeContactConsentOperation, {
      params: { id: contactId(c), channel: c.req.param("channel") ?? "" },
    });
    return redirectTo(c, contactHref(c), {
      kind: "notice",
      text: `The opt-out from ${CHANNEL_LABEL[revoked.channel]} is recorded: no review request goes to them there.`,
    });
  });

/** REST: DELETE /v1/contacts/{id} (eraseContact, tenant_admin), once "I understand" is ticked. */
export const eraseSubmit = (c: CC) =>
  contactAction(c, canAdminister, async () => {
    if ((await formOf(c)).one("understand") !== "yes")
      return redirectTo(c, contactHref(c), {
        kind: "error",
        text: "Nothing was erased: tick “I understand” to confirm, then Erase.",
      });
    await callOperation<Contact>(c, eraseContactOperation, contactParams(c));
    return redirectTo(c, contactHref(c), {
      kind: "notice",
      text: "Their personal data is erased, and they stay suppressed.",
    });
  });
