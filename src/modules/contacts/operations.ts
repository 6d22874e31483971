import { paged, stdErrors } from "../../lib/openapi";
import { defineOperation } from "../../lib/operation";
import { currentConsent } from "./consent";
import { ContactListQuery, ContactWithConsentSchema } from "./schemas";
import { listContacts } from "./service";

// The contacts operations served by REST, MCP and agents alike (src/lib/operation.ts).

export const listContactsOperation = defineOperation({
  name: "contact.list",
  operationId: "listContacts",
  method: "get",
  path: "/v1/contacts",
  tags: ["Contacts"],
  summary: "List contacts, newest first; search by email, phone or name prefix",
  description:
    "Lists the business's customer contacts, newest first, each with email, phone, name, suppression state and " +
    "current consent per channel (email, sms, whatsapp, ...: granted, revoked or pending, with when). " +
    "search matches the start of the email, the phone number or the name. Use isSuppressed, hasEmail and hasPhone " +
    "to find who can be asked for a review on a channel.",
  request: { query: ContactListQuery },
  output: paged(ContactWithConsentSchema).openapi("ContactPage"),
  errors: stdErrors,
  scopes: ["read:contacts"],
  access: "read",
  mcp: {
    title: "List customers (contacts)",
    limit: { default: 25, max: 200 },
    describe: { search: "prefix of email, phone or name", cursor: "pageInfo.endCursor from the previous page" },
  },
  handler: async (ctx, input) => {
    const page = await listContacts(ctx, input);
    const consent = await currentConsent(
      ctx,
      page.data.map((c) => c.id),
    );
    return { ...page, data: page.data.map((c) => ({ ...c, consent: consent.get(c.id) ?? {} })) };
  },
});
