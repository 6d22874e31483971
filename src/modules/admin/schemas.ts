import { z } from "@hono/zod-openapi";
import type { agencies } from "../../db/schema";
import { DateTime, PageQuerySchema } from "../../lib/openapi";
import { Email, Slug } from "../../lib/validators";

export const AgencySchema = z
  .object({ id: z.string(), name: z.string(), slug: z.string(), isActive: z.boolean(), createdAt: DateTime, updatedAt: DateTime })
  .openapi("Agency");

export const AgencyAdminGrantSchema = z
  .object({
    agencyId: z.string(),
    userId: z.string(),
    email: z.string(),
    role: z.literal("agency_admin"),
    invited: z.boolean().openapi({ description: "true when a new account was created and emailed an invite" }),
  })
  .openapi("AgencyAdminGrant");

export const CreatedAgencySchema = AgencySchema.extend({
  admin: AgencyAdminGrantSchema.nullable().openapi({ description: "the first agency_admin, when adminEmail was given" }),
}).openapi("CreatedAgency");

const Name = z.string().trim().min(1).max(200);

export const CreateAgencyBody = z
  .object({ name: Name, slug: Slug, adminEmail: Email.optional(), adminName: Name.optional() })
  .openapi("CreateAgencyRequest");

export const AddAgencyAdminBody = z.object({ email: Email, name: Name.optional() }).openapi("AddAgencyAdminRequest");

export const AgencyListQuery = PageQuerySchema;

export type CreateAgencyInput = z.infer<typeof CreateAgencyBody>;

export const toAgency = (a: typeof agencies.$inferSelect) => ({
  id: a.id,
  name: a.name,
  slug: a.slug,
  isActive: a.isActive,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});
