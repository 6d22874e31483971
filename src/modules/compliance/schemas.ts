import { z } from "@hono/zod-openapi";

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "24-hour time HH:MM");

export const ComplianceConfigSchema = z
  .object({
    healthcareSafeMode: z.boolean(),
    retentionDays: z.number().int().min(90).max(2190),
    requireDoubleOptIn: z.boolean(),
    allowDataExport: z.boolean(),
    allowDataDeletion: z.boolean(),
    quietHoursStart: HHMM.openapi({ description: "Sends after this local time are blocked", example: "21:00" }),
    quietHoursEnd: HHMM.openapi({ description: "Sends before this local time are blocked", example: "08:00" }),
    frequencyCapDaily: z.number().int().min(0).max(100),
    frequencyCapWeekly: z.number().int().min(0).max(500),
    requireEmailConsent: z.boolean(),
    requireSmsOptIn: z.boolean(),
  })
  .openapi("ComplianceConfig");

export type ComplianceConfig = z.infer<typeof ComplianceConfigSchema>;

export const UpdateComplianceBody = ComplianceConfigSchema.partial()
  .strict()
  .openapi("UpdateComplianceConfigRequest", { description: "Fields left out keep their current value" });

/** Spec defaults, and decisions (docs/contacts.md) where the spec gives none. */
export const COMPLIANCE_DEFAULTS: ComplianceConfig = {
  healthcareSafeMode: false,
  retentionDays: 730,
  requireDoubleOptIn: false,
  allowDataExport: true,
  allowDataDeletion: true,
  quietHoursStart: "21:00",
  quietHoursEnd: "08:00",
  frequencyCapDaily: 3,
  frequencyCapWeekly: 5,
  requireEmailConsent: true,
  requireSmsOptIn: true,
};
