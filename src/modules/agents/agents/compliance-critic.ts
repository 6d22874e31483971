import { z } from "@hono/zod-openapi";
import { MESSAGE_CHANNELS, type MessageChannel } from "../../../db/schema";
import type { ComplianceConfig } from "../../compliance/schemas";
import {
  blocking,
  bySeverity,
  type Finding,
  FindingSchema,
  lintContent,
  lintSequence,
  lintSettings,
  SEVERITIES,
} from "../compliance-rules";
import { defineAgent } from "../define";
import type { AgentRun } from "../types";

const Draft = z.object({
  channel: z.enum(MESSAGE_CHANNELS),
  subject: z.string().max(998).nullable().optional(),
  bodyHtml: z.string().max(500_000).nullable().optional(),
  bodyText: z.string().max(500_000).nullable().optional(),
});

const input = z
  .object({
    templateId: z.string().min(1).max(64).optional(),
    campaignId: z.string().min(1).max(64).optional(),
    draft: Draft.optional(),
  })
  .refine((i) => [i.templateId, i.campaignId, i.draft].filter(Boolean).length === 1, {
    message: "Give exactly one of templateId, campaignId or draft",
  })
  .openapi("ComplianceCriticInput");

const output = z
  .object({
    target: z.object({ kind: z.enum(["template", "campaign", "draft"]), id: z.string().nullable() }),
    findings: z.array(FindingSchema),
    counts: z.object(
      Object.fromEntries(SEVERITIES.map((s) => [s, z.number().int()])) as Record<
        (typeof SEVERITIES)[number],
        z.ZodNumber
      >,
    ),
    passed: z.boolean().describe("no high or critical finding"),
  })
  .openapi("ComplianceCriticOutput");

async function knownTokens(run: AgentRun) {
  const t = await run.tool<{ builtin: string[]; custom: string[] }>("template.tokens");
  return new Set([...t.builtin, ...t.custom]);
}

type TemplateDto = {
  id: string;
  channel: MessageChannel;
  subject: string | null;
  bodyHtml: string | null;
  bodyText: string | null;
};

async function review(
  run: AgentRun,
  i: z.infer<typeof input>,
): Promise<{ target: { kind: "template" | "campaign" | "draft"; id: string | null }; findings: Finding[] }> {
  const tokens = await knownTokens(run);
  if (i.draft) {
    const d = i.draft;
    return {
      target: { kind: "draft", id: null },
      findings: lintContent(
        { channel: d.channel, subject: d.subject ?? null, bodyHtml: d.bodyHtml ?? null, bodyText: d.bodyText ?? null },
        { source: "input", id: null },
        tokens,
      ),
    };
  }
  if (i.templateId) {
    const t = await run.tool<TemplateDto>("template.get", { templateId: i.templateId });
    return {
      target: { kind: "template", id: t.id },
      findings: lintContent(t, { source: "template.get", id: t.id }, tokens),
    };
  }
  const campaign = await run.tool<{
    id: string;
    channels: MessageChannel[];
    templates: { templateId: string }[];
    sequence: {
      steps: { stepIndex: number; channel: MessageChannel; delayDays: number; templateId: string | null }[];
    } | null;
  }>("campaign.get", { campaignId: i.campaignId });
  const config = await run.tool<ComplianceConfig>("compliance.config");
  const origin = { source: "campaign.get", id: campaign.id };
  const findings = [
    ...lintSettings(config, campaign.channels, origin),
    ...(campaign.sequence ? lintSequence(campaign.sequence.steps, config, origin) : []),
  ];
  const templateIds = [
    ...new Set([
      ...campaign.templates.map((b) => b.templateId),
      ...(campaign.sequence?.steps.flatMap((s) => (s.templateId ? [s.templateId] : [])) ?? []),
    ]),
  ];
  for (const id of templateIds) {
    const t = await run.tool<TemplateDto>("template.get", { templateId: id });
    findings.push(...lintContent(t, { source: "template.get", id: t.id }, tokens));
  }
  return { target: { kind: "campaign", id: campaign.id }, findings };
}

export const complianceCritic = defineAgent({
  name: "agent.compliance-critic",
  title: "Compliance critic",
  description:
    "Checks one of templateId, campaignId (with its sequence and settings) or a draft against the compliance rules " +
    "(quiet hours, caps, consent, opt-out, review gating and incentive wording, tokens, SMS segments): findings with " +
    "severity, fix and evidence.",
  input,
  output,
  systemPrompt:
    "You are a compliance reviewer for review-request messages (email, SMS, WhatsApp). Check consent, opt-out, quiet hours, " +
    "frequency caps, review gating (asking only happy customers), review incentives (16 CFR 465) and SMS segment cost. " +
    "Report each problem as a finding with rule, severity (info, low, medium, high, critical), message, fix and evidence.",
  tools: ["template.get", "template.tokens", "campaign.get", "compliance.config"],
  range: () => null,
  async rules(run, i) {
    const { target, findings } = await review(run, i);
    findings.sort(bySeverity);
    const counts = Object.fromEntries(
      SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length]),
    ) as z.infer<typeof output>["counts"];
    return { target, findings, counts, passed: !findings.some(blocking) };
  },
});
