/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { createContactOperation, listContactsOperation } from "../../contacts/operations";
import type { ContactSchema, ContactWithConsentSchema } from "../../contacts/schemas";
import { FilterSelect, tenantHref, tenantOf, When } from "../atoms";
import { blankToUndefined, withLabels } from "../form-values";
import { act, type CC, can, csrfOf, formOf, page, redirectTo } from "../kit";
import { FormCard, ListPager, StateTag } from "../places";
import { channelName } from "../solicitation-words";

/*
 * Contacts (docs/console.md "Contacts", issue #46 item 2): the people a business asks for reviews, as GET
 * /v1/contacts lists them (every role; its search and filters, keyset pages of 50, newest first), each with its
 * state and current consent per channel, linked to the contact's page (pages/contact.tsx). A team member adds
 * one (POST /v1/contacts: matched on email, else phone, so an existing contact is updated) or imports a CSV
 * file (pages/contacts-import.tsx). Each read and form calls its REST operation (callOperation: REST's role check
 * and schemas).
 */

export type Contact = z.infer<typeof ContactSchema>;
type Listed = z.infer<typeof ContactWithConsentSchema>;

/** How a person reads a contact: the name, else the email, else the phone; an erased one says so. */
export const contactName = (c: Pick<Contact, "firstName" | "lastName" | "email" | "phone">) =>
  [c.firstName, c.lastName].filter(Boolean).join(" ") || c.email || c.phone || "Erased contact";

/**
 * Whether the contact's personal data was erased (by a person, or by the retention sweep): contacts/privacy.ts
 * leaves it suppressed with neither email nor phone, which no live contact lacks (an upsert needs one of them).
 */
export const isErased = (c: Pick<Contact, "isSuppressed" | "email" | "phone">) =>
  c.isSuppressed && c.email === null && c.phone === null;

/** The contact's state (contacts/state.ts): active, suppressed (opted out of everything), or erased. */
export const ContactState = (props: { c: Pick<Contact, "isSuppressed" | "email" | "phone"> }) =>
  isErased(props.c) ? (
    <span class="status">Erased</span>
  ) : (
    <StateTag on={!props.c.isSuppressed} yes="Active" no="Suppressed" />
  );

/** The list's filters (GET /v1/contacts's query), as the form names them. */
const FILTERS = ["search", "isSuppressed", "hasEmail", "hasPhone"] as const;

const HAS: [string, string][] = [
  ["", "Any"],
  ["true", "Has one"],
  ["false", "Has none"],
];

function consentText(consent: Listed["consent"]): string {
  const parts = Object.entries(consent).map(([ch, s]) => `${channelName(ch)} ${s.status}`);
  return parts.join(", ");
}

export async function contactsPage(c: CC): Promise<Response> {
  const f: Record<string, string | undefined> = Object.fromEntries(
    FILTERS.map((k) => [k, c.req.query(k) || undefined]),
  );
  const cursor = c.req.query("cursor") || undefined;
  const [tenant, list, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<Page<Listed>>(c, listContactsOperation, { query: { ...f, cursor, limit: "50" } }),
    csrfOf(c),
  ]);
  const base = tenantHref(c, "/contacts");
  const writer = can(c, "tenant_user");
  const filtered = FILTERS.some((k) => f[k]);
  return page(
    c,
    { title: "Contacts", section: "contacts", tenant },
    <>
      <h1>Contacts</h1>
      <p class="small">
        {writer && (
          <>
            <a class="button secondary" href={`${base}/import`}>
              Import contacts from a CSV file
            </a>{" "}
          </>
        )}
        <a href={tenantHref(c, "/compliance")}>Quiet hours, limits and consent rules</a>
      </p>
      <form method="get" class="filters" aria-label="Search the contacts">
        <div>
          <label for="search">Search</label>
          <input id="search" name="search" type="search" value={f.search ?? ""} maxlength={100} />
        </div>
        <FilterSelect
          id="isSuppressed"
          label="State"
          value={f.isSuppressed}
          options={[
            ["", "Any"],
            ["false", "Can be asked (not suppressed)"],
            ["true", "Suppressed"],
          ]}
        />
        <FilterSelect id="hasEmail" label="Email address" value={f.hasEmail} options={HAS} />
        <FilterSelect id="hasPhone" label="Phone number" value={f.hasPhone} options={HAS} />
        <div class="actions">
          <button type="submit" class="secondary">
            Search
          </button>
          {filtered && <a href={base}>Show all</a>}
        </div>
      </form>
      <p class="muted small">
        Search finds the start of an email, a phone number (with its country code, such as 1212 or +44), a first name or
        a last name.
      </p>
      {list.total === 0 ? (
        <p class="card">
          {filtered
            ? "No contact matches. Try fewer letters, or Show all."
            : writer
              ? "No contact yet. Import a CSV file of your customers, or add one below."
              : "No contact yet. A team member imports them or adds them."}
        </p>
      ) : (
        <table class="rows">
          <caption>
            {filtered ? "Contacts found" : "Contacts"} ({list.total.toLocaleString("en-US")}), newest first
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Phone</th>
              <th scope="col">State</th>
              <th scope="col">Consent</th>
              <th scope="col">Added</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((x) => (
              <tr>
                <th scope="row" data-label="Name">
                  <a href={`${base}/${encodeURIComponent(x.id)}`}>{contactName(x)}</a>
                </th>
                <td data-label="Email">{x.email ?? <span class="muted">none</span>}</td>
                <td data-label="Phone">{x.phone ?? <span class="muted">none</span>}</td>
                <td data-label="State">
                  <ContactState c={x} />
                </td>
                <td data-label="Consent">{consentText(x.consent) || <span class="muted">none recorded</span>}</td>
                <td data-label="Added">
                  <When iso={x.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ListPager base={base} list={list} cursor={cursor} params={f} />
      {writer && (
        <FormCard id="add" title="Add a contact" action={base} csrf={csrf} button="Save the contact">
          <p class="muted small">
            An email or a phone number is needed. Someone already here with that email (else phone) is updated instead.
          </p>
          <label for="add-email">Email</label>
          <input id="add-email" name="email" type="email" maxlength={254} autocomplete="off" />
          <label for="add-phone">Phone</label>
          <input id="add-phone" name="phone" type="tel" maxlength={32} autocomplete="off" />
          <label for="add-first">First name</label>
          <input id="add-first" name="firstName" type="text" maxlength={100} autocomplete="off" />
          <label for="add-last">Last name</label>
          <input id="add-last" name="lastName" type="text" maxlength={100} autocomplete="off" />
        </FormCard>
      )}
    </>,
  );
}

/** The schema's field names as the form labels them. */
const LABELS = { email: "Email", phone: "Phone", firstName: "First name", lastName: "Last name" };

/** REST: POST /v1/contacts (createContact: tenant_user, its body schema); then the contact's page. */
export async function addContactSubmit(c: CC): Promise<Response> {
  const back = tenantHref(c, "/contacts");
  return act(c, back, () =>
    withLabels(
      LABELS,
      async () => {
        const form = await formOf(c);
        const saved = await callOperation<Contact>(c, createContactOperation, {
          body: Object.fromEntries(Object.keys(LABELS).map((k) => [k, blankToUndefined(form.one(k))])),
        });
        return redirectTo(c, `${back}/${encodeURIComponent(saved.id)}`, {
          kind: "notice",
          text: `${contactName(saved)} is saved.`,
        });
      },
      { "email or phone is required": "an email or a phone number is needed" },
    ),
  );
}
