/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import type { Child } from "hono/jsx";
import { MESSAGE_CHANNELS, type MessageChannel } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";
import { callOperation } from "../../../lib/operation-route";
import {
  getEmailSettingsOperation,
  getSmsSettingsOperation,
  getWhatsAppSettingsOperation,
  testMessagingSettingsOperation,
  updateEmailSettingsOperation,
  updateSmsSettingsOperation,
  updateWhatsAppSettingsOperation,
  verifyEmailDomainOperation,
} from "../../messaging-settings/operations";
import type {
  EmailSettingsSchema,
  SmsSettingsSchema,
  TestSendResultSchema,
  WhatsAppSettingsSchema,
} from "../../messaging-settings/schemas";
import { tenantHref, tenantOf, When } from "../atoms";
import { blankToNull, blankToUndefined, ticked, withLabels } from "../form-values";
import { act, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";
import {
  credentialLabel,
  messagingLabels,
  OptionInput,
  ProviderFieldset,
  providerLabel,
  providerPart,
  providersOf,
} from "./messaging-fields";

/*
 * Email, SMS and WhatsApp (docs/console.md, issue #46 item 3): the provider and sender each channel's review
 * requests go out with, as GET /v1/settings/{email,sms,whatsapp} show them (every role reads them; credentials
 * only as the names of those stored). A tenant admin sets a channel up (PUT /v1/settings/{channel}, secrets
 * write-only: empty keeps the stored one) and checks the email domain's DKIM and DMARC records (POST
 * /v1/settings/email/verify-domain); a manager sends a test (POST /v1/settings/messaging/test), whose answer
 * the page words as a sentence. Each read and form calls the REST operation (callOperation: its role check and
 * schemas).
 */

type Email = z.infer<typeof EmailSettingsSchema>;
type Sms = z.infer<typeof SmsSettingsSchema>;
type WhatsApp = z.infer<typeof WhatsAppSettingsSchema>;
type TestResult = z.infer<typeof TestSendResultSchema>;

const CHANNEL: Record<MessageChannel, string> = { email: "Email", sms: "SMS", whatsapp: "WhatsApp" };

/** A channel's settings, or null while none are stored (REST's 404). */
async function orNone<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof ApiError && e.code === "NOT_FOUND") return null;
    throw e;
  }
}

const DOMAIN_STATE: Record<string, { text: string; tone: string }> = {
  verified: { text: "Found", tone: "status ok" },
  failed: { text: "Not found", tone: "status bad" },
  pending: { text: "Not checked yet", tone: "status warn" },
};
const DomainState = ({ status }: { status: string }) => (
  <span class={DOMAIN_STATE[status]?.tone ?? "status"}>{DOMAIN_STATE[status]?.text ?? status}</span>
);

/** What is stored for a channel, in a list a person reads. */
function Stored(props: { sender: string; provider: string; credentialsSet: string[]; fallback: boolean; at: string }) {
  return (
    <dl class="facts">
      <dt>Provider</dt>
      <dd>{providerLabel(props.provider)}</dd>
      <dt>Sends as</dt>
      <dd>{props.sender || <span class="muted">not set</span>}</dd>
      <dt>Secrets stored</dt>
      <dd>{props.credentialsSet.map(credentialLabel).join(", ") || <span class="muted">none</span>}</dd>
      <dt>If it cannot send</dt>
      <dd>{props.fallback ? "the platform's sender takes over" : "nothing goes out"}</dd>
      <dt>Changed</dt>
      <dd>
        <When iso={props.at} />
      </dd>
    </dl>
  );
}

/** The email domain's records as the last check found them, with what to publish. */
function DomainCheck(props: { email: Email; admin: boolean; csrf: string; action: string }) {
  const { email } = props;
  const check = email.domainCheck;
  return (
    <section aria-labelledby="domain">
      <h3 id="domain">Sender domain {email.senderDomain && <code>{email.senderDomain}</code>}</h3>
      <p>
        DKIM: <DomainState status={email.dkimStatus} /> · DMARC: <DomainState status={email.dmarcStatus} />
      </p>
      {check ? (
        <table class="rows">
          <caption>
            DNS records (TXT) checked <When iso={check.checkedAt} />
          </caption>
          <thead>
            <tr>
              <th scope="col">Record</th>
              <th scope="col">State</th>
              <th scope="col">What we found</th>
            </tr>
          </thead>
          <tbody>
            {[...check.dkim.map((d) => ({ ...d, kind: "DKIM" })), { ...check.dmarc, kind: "DMARC" }].map((r) => (
              <tr>
                <th scope="row" data-label="Record">
                  <code>{r.name}</code> <span class="muted small">({r.kind})</span>
                </th>
                <td data-label="State">
                  <DomainState status={r.status} />
                </td>
                <td data-label="What we found">
                  {r.record ? <code>{r.record}</code> : <span class="muted">nothing</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">Not checked yet.</p>
      )}
      {check?.error && <p class="muted small">Some lookups failed: {check.error}</p>}
      {email.dkimStatus !== "verified" && (
        <p class="small">
          DKIM: publish the DKIM records {providerLabel(email.provider)} shows for this domain, then check again.
        </p>
      )}
      {email.dmarcStatus !== "verified" && email.senderDomain && (
        <p class="small">
          DMARC: publish a TXT record at <code>_dmarc.{email.senderDomain}</code>; to start with one that only reports,{" "}
          <code>v=DMARC1; p=none; rua=mailto:dmarc@{email.senderDomain}</code>.
        </p>
      )}
      {props.admin && (
        <form method="post" action={props.action}>
          <Csrf token={props.csrf} />
          <button type="submit" class="secondary">
            Check the DNS records
          </button>
        </form>
      )}
    </section>
  );
}

/** A channel's set-up form: the provider, the sender, each provider's own fields, the fallback. */
function ChannelForm(props: {
  channel: MessageChannel;
  action: string;
  csrf: string;
  stored: Email | Sms | WhatsApp | null;
  children: Child;
}) {
  const { channel, stored } = props;
  const p = `${channel}-set`;
  return (
    <details open={!stored}>
      <summary>{stored ? `Change the ${CHANNEL[channel]} set-up` : `Set up ${CHANNEL[channel]}`}</summary>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <label for={`${p}-provider`}>Provider</label>
        <select id={`${p}-provider`} name="provider">
          {providersOf(channel).map((name) => (
            <option value={name} selected={name === stored?.provider}>
              {providerLabel(name)}
            </option>
          ))}
        </select>
        {props.children}
        {providersOf(channel).map((name) => (
          <ProviderFieldset channel={channel} provider={name} stored={stored ?? undefined} />
        ))}
        <label class="check" for={`${p}-fallback`}>
          <input
            id={`${p}-fallback`}
            type="checkbox"
            name="fallbackToPlatform"
            value="true"
            checked={stored?.fallbackToPlatform ?? false}
          />
          <span>When this provider is not complete, send through the platform's sender</span>
        </label>
        <div class="actions">
          <button type="submit">Save the {CHANNEL[channel]} set-up</button>
        </div>
      </form>
    </details>
  );
}

function TextField(props: {
  id: string;
  name: string;
  label: string;
  value?: string | null;
  type?: string;
  help?: string;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value ?? ""}
        autocomplete="off"
        aria-describedby={props.help ? `${props.id}-help` : undefined}
      />
      {props.help && (
        <p id={`${props.id}-help`} class="muted small">
          {props.help}
        </p>
      )}
    </>
  );
}

export async function messagingPage(c: CC): Promise<Response> {
  const [tenant, csrf, email, sms, whatsapp] = await Promise.all([
    tenantOf(c),
    csrfOf(c),
    orNone(callOperation<Email>(c, getEmailSettingsOperation)),
    orNone(callOperation<Sms>(c, getSmsSettingsOperation)),
    orNone(callOperation<WhatsApp>(c, getWhatsAppSettingsOperation)),
  ]);
  const admin = can(c, "tenant_admin");
  const base = tenantHref(c, "/messaging");
  const notSet = (channel: MessageChannel) => (
    <p class="muted">
      Not set up: {CHANNEL[channel]} review requests go out through the platform's sender, when it has one.
    </p>
  );
  const me = c.var.consoleSession?.principal.email ?? "";
  return page(
    c,
    { title: "Email, SMS and WhatsApp", section: "messaging", tenant },
    <>
      <h1>Email, SMS and WhatsApp</h1>
      <p class="muted">
        Your review requests go out through these providers, from your own sender.{" "}
        {!admin && "An admin of this business changes them."}
      </p>
      <section class="card" aria-labelledby="email">
        <h2 id="email">Email</h2>
        {email ? (
          <Stored
            sender={`${email.fromName} <${email.fromAddress}>${email.replyToAddress ? `, replies to ${email.replyToAddress}` : ""}`}
            provider={email.provider}
            credentialsSet={email.credentialsSet}
            fallback={email.fallbackToPlatform}
            at={email.updatedAt}
          />
        ) : (
          notSet("email")
        )}
        {email && <DomainCheck email={email} admin={admin} csrf={csrf} action={`${base}/email/verify-domain`} />}
        {admin && (
          <ChannelForm channel="email" action={`${base}/email`} csrf={csrf} stored={email}>
            <TextField
              id="email-from"
              name="fromAddress"
              label="From address"
              type="email"
              value={email?.fromAddress}
            />
            <TextField id="email-name" name="fromName" label="From name" value={email?.fromName ?? tenant.name} />
            <TextField
              id="email-reply"
              name="replyToAddress"
              label="Reply-to address (optional)"
              type="email"
              value={email?.replyToAddress}
            />
            <TextField
              id="email-domain"
              name="senderDomain"
              label="Sender domain (optional)"
              value={email?.senderDomain}
              help="The domain whose DKIM and DMARC records are checked; empty: the from address's."
            />
            <OptionInput
              id="email-dkim"
              name="o.dkimSelectors"
              k="dkimSelectors"
              value={email?.options.dkimSelectors}
            />
          </ChannelForm>
        )}
      </section>
      <section class="card" aria-labelledby="sms">
        <h2 id="sms">SMS</h2>
        {sms ? (
          <Stored
            sender={sms.fromNumber ?? (sms.options.messagingServiceSid ? "the Messaging Service's numbers" : "")}
            provider={sms.provider}
            credentialsSet={sms.credentialsSet}
            fallback={sms.fallbackToPlatform}
            at={sms.updatedAt}
          />
        ) : (
          notSet("sms")
        )}
        {admin && (
          <ChannelForm channel="sms" action={`${base}/sms`} csrf={csrf} stored={sms}>
            <TextField
              id="sms-from"
              name="fromNumber"
              label="From number (optional with a Messaging Service)"
              type="tel"
              value={sms?.fromNumber}
              help="In international form, e.g. +15551234567."
            />
          </ChannelForm>
        )}
      </section>
      <section class="card" aria-labelledby="whatsapp">
        <h2 id="whatsapp">WhatsApp</h2>
        {whatsapp ? (
          <Stored
            sender={whatsapp.channelRegistrationId ?? ""}
            provider={whatsapp.provider}
            credentialsSet={whatsapp.credentialsSet}
            fallback={whatsapp.fallbackToPlatform}
            at={whatsapp.updatedAt}
          />
        ) : (
          notSet("whatsapp")
        )}
        {admin && (
          <ChannelForm channel="whatsapp" action={`${base}/whatsapp`} csrf={csrf} stored={whatsapp}>
            <TextField
              id="whatsapp-sender"
              name="channelRegistrationId"
              label="Sender"
              value={whatsapp?.channelRegistrationId}
              help="Meta: the phone number id (digits). Twilio: the WhatsApp sender number, e.g. +15551234567."
            />
          </ChannelForm>
        )}
      </section>
      {can(c, "manager") && (
        <section class="card" aria-labelledby="test">
          <h2 id="test">Send a test</h2>
          <p class="muted small">
            A fixed test message, as a review request would go; no contact is created. At most 10 an hour.
          </p>
          <form method="post" action={`${base}/test`}>
            <Csrf token={csrf} />
            <label for="test-channel">Channel</label>
            <select id="test-channel" name="channel">
              {MESSAGE_CHANNELS.map((ch) => (
                <option value={ch}>{CHANNEL[ch]}</option>
              ))}
            </select>
            <TextField
              id="test-to"
              name="to"
              label="Send to"
              value={me}
              help="An email address, or for SMS and WhatsApp a phone number such as +15551234567."
            />
            <details>
              <summary>WhatsApp: an approved template (optional)</summary>
              <p class="muted small">Outside a 24-hour conversation WhatsApp delivers only approved templates.</p>
              <TextField id="test-template" name="templateName" label="Template name" />
              <TextField id="test-language" name="templateLanguage" label="Template language" value="en_US" />
            </details>
            <div class="actions">
              <button type="submit">Send the test</button>
            </div>
          </form>
        </section>
      )}
    </>,
  );
}

const back = (c: CC) => tenantHref(c, "/messaging");
type Form = Awaited<ReturnType<typeof formOf>>;

/** A channel's set-up form: the chosen provider's fields, through the channel's PUT operation (tenant_admin). */
function channelSubmit(c: CC, channel: MessageChannel, save: (form: Form, provider: string) => Promise<unknown>) {
  return act(c, back(c), () =>
    withLabels(messagingLabels, async () => {
      const form = await formOf(c);
      await save(form, form.one("provider"));
      return redirectTo(c, back(c), {
        kind: "notice",
        text: `The ${CHANNEL[channel]} set-up is saved. Send a test to see that it works.`,
      });
    }),
  );
}

/** REST: PUT /v1/settings/email (tenant_admin). */
export const emailSubmit = (c: CC) =>
  channelSubmit(c, "email", (form, provider) =>
    callOperation(c, updateEmailSettingsOperation, {
      body: {
        provider,
        fromAddress: form.one("fromAddress"),
        fromName: form.one("fromName"),
        replyToAddress: blankToNull(form.one("replyToAddress")),
        senderDomain: blankToUndefined(form.one("senderDomain")),
        fallbackToPlatform: ticked(form.one("fallbackToPlatform")),
        ...providerPart("email", provider, form),
      },
    }),
  );

/** REST: PUT /v1/settings/sms (tenant_admin). */
export const smsSubmit = (c: CC) =>
  channelSubmit(c, "sms", (form, provider) =>
    callOperation(c, updateSmsSettingsOperation, {
      body: {
        provider,
        fromNumber: blankToNull(form.one("fromNumber")),
        fallbackToPlatform: ticked(form.one("fallbackToPlatform")),
        ...providerPart("sms", provider, form),
      },
    }),
  );

/** REST: PUT /v1/settings/whatsapp (tenant_admin). */
export const whatsappSubmit = (c: CC) =>
  channelSubmit(c, "whatsapp", (form, provider) =>
    callOperation(c, updateWhatsAppSettingsOperation, {
      body: {
        provider,
        channelRegistrationId: blankToNull(form.one("channelRegistrationId")),
        fallbackToPlatform: ticked(form.one("fallbackToPlatform")),
        ...providerPart("whatsapp", provider, form),
      },
    }),
  );

const FOUND: Record<string, string> = {
  verified: "found",
  failed: "not found",
  pending: "not checked (a lookup failed)",
};

/** REST: POST /v1/settings/email/verify-domain (tenant_admin). */
export async function verifyDomainSubmit(c: CC): Promise<Response> {
  return act(c, back(c), () =>
    withLabels({ senderDomain: "Sender domain" }, async () => {
      const after = await callOperation<Email>(c, verifyEmailDomainOperation);
      const ok = after.dkimStatus === "verified" && after.dmarcStatus === "verified";
      return redirectTo(c, back(c), {
        kind: ok ? "notice" : "error",
        text: `Checked ${after.senderDomain}: DKIM ${FOUND[after.dkimStatus]}, DMARC ${FOUND[after.dmarcStatus]}.${ok ? "" : " See what to publish under Sender domain."}`,
      });
    }),
  );
}

const SOURCE: Record<TestResult["source"], string> = {
  tenant: "with your own settings",
  platform: "through the platform's sender (your own set-up is missing or not complete)",
  dev_mailbox: "",
};

/** The answer of POST /v1/settings/messaging/test as a sentence. */
export function testSendSentence(r: TestResult): string {
  const what = `the test ${r.channel === "email" ? "email" : `${CHANNEL[r.channel]} message`} to ${r.to}`;
  if (r.source === "dev_mailbox")
    return `No ${CHANNEL[r.channel]} provider is set up, here or for the platform, so ${what} went to the development mailbox only: nothing left this server.`;
  if (r.accepted)
    return `${providerLabel(r.provider)} accepted ${what} ${SOURCE[r.source]}. It should arrive within a minute.`;
  const e = r.error!;
  const said = [e.status ? `HTTP ${e.status}` : null, e.code].filter(Boolean).join(", ");
  return `${providerLabel(r.provider)} refused ${what}: ${e.message.replace(/\.$/, "")}${said ? ` (${said})` : ""}. ${
    e.retryable ? "This may pass if you try again shortly." : "Fix the set-up above, then send another test."
  }`;
}

/** REST: POST /v1/settings/messaging/test (manager), through its operation. */
export async function testSendSubmit(c: CC): Promise<Response> {
  return act(c, back(c), () =>
    withLabels(messagingLabels, async () => {
      const form = await formOf(c);
      const template = form.one("templateName").trim();
      const channel = form.one("channel");
      const result = await callOperation<TestResult>(c, testMessagingSettingsOperation, {
        body: {
          channel,
          to: form.one("to"),
          ...(template && channel === "whatsapp"
            ? { whatsappTemplate: { name: template, language: form.one("templateLanguage").trim() } }
            : {}),
        },
      });
      return redirectTo(c, back(c), {
        kind: result.accepted ? "notice" : "error",
        text: testSendSentence(result),
      });
    }),
  );
}
