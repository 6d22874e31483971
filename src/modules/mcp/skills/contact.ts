import { z } from "@hono/zod-openapi";
import { suppressContact } from "../../contacts/service";
import { skill } from "./registry";

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
