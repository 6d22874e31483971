import { z } from "@hono/zod-openapi";
import { currentConsent } from "../../contacts/consent";
import { listContacts, suppressContact } from "../../contacts/service";
import { skill } from "./registry";

export const contactListSkill = skill({
  name: "contact.list",
  title: "List customers (contacts)",
  description:
    "Lists the business's customer contacts, newest first, each with email, phone, name, suppression state and " +
    "current consent per channel (email, sms, whatsapp, ...: granted, revoked or pending, with when). " +
    "search matches the start of the email, the phone number or the name. Use isSuppressed, hasEmail and hasPhone " +
    "to find who can be asked for a review on a channel.",
  input: z.object({
    search: z.string().trim().min(1).max(200).optional().describe("prefix of email, phone or name"),
    isSuppressed: z.boolean().optional().describe("true: only opted-out contacts; false: only reachable ones"),
    hasEmail: z.boolean().optional().describe("true: only contacts with an email address"),
    hasPhone: z.boolean().optional().describe("true: only contacts with a phone number"),
    limit: z.number().int().min(1).max(200).default(25).describe("page size, 1 to 200 (default 25)"),
    cursor: z.string().max(512).optional().describe("pageInfo.endCursor from the previous page"),
  }),
  scopes: ["read:contacts"],
  access: "read",
  handler: async (ctx, input) => {
    const page = await listContacts(ctx, input);
    const consent = await currentConsent(ctx, page.data.map((c) => c.id));
    return { ...page, data: page.data.map((c) => ({ ...c, consent: consent.get(c.id) ?? {} })) };
  },
});

export const contactSuppressSkill = skill({
  name: "contact.suppress",
  title: "Opt a customer out of all messages",
  description:
    "Suppresses a contact: no review request will be sent to them again on any channel until a person " +
    "unsuppresses them in the app. Use it when a customer asks not to be contacted. Needs the contact's id " +
    "(from contact.list) and a short reason, which is kept in the audit log.",
  input: z.object({
    contactId: z.string().min(1).max(64).describe("the contact's id"),
    reason: z.string().trim().min(1).max(500).describe("why, e.g. 'asked by phone not to be contacted'"),
  }),
  scopes: ["write:contacts"],
  access: "write",
  destructive: false,
  minRole: "tenant_user",
  confirm: (input) => `Stop every message to contact ${input.contactId}? Reason: ${input.reason}`,
  handler: async (ctx, input) => suppressContact(ctx, input.contactId, input.reason),
});
