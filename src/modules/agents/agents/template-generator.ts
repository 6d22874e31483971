import { z } from "@hono/zod-openapi";
import { forbidden } from "../../../lib/errors";
import { createTemplate } from "../../templates/service";
import { smsSegments } from "../../templates/sms-segments";
import { extractTokens } from "../../templates/tokens";
import { blocking, FindingSchema, lintContent } from "../compliance-rules";
import { defineAgent } from "../define";
import { type AgentRun, Evidences } from "../types";
import { emailTemplateHtml } from "./template-generator-html";

const PURPOSES = ["review_request", "reminder"] as const;
const LOCALES = ["en", "es", "fr", "de"] as const;
type Voice = "professional" | "friendly" | "casual";
type Copy = {
  subject: string;
  greeting: Record<Voice, string>;
  ask: Record<(typeof PURPOSES)[number], string>;
  cta: string;
  unsubscribe: string;
  smsAsk: Record<(typeof PURPOSES)[number], string>;
  stop: string;
};

// Every customer is asked the same way (no gating, no incentive), with {{reviewLink}} and the opt-out.
const COPY: Record<(typeof LOCALES)[number], Copy> = {
  en: {
    subject: "How did we do, {{firstName}}?",
    greeting: { professional: "Dear {{firstName}},", friendly: "Hi {{firstName}},", casual: "Hey {{firstName}}!" },
    ask: {
      review_request:
        "Thank you for choosing {{brandName}} at {{locationName}}. We would value your honest review of your visit.",
      reminder: "A quick reminder: we would still love to hear how your visit to {{locationName}} went, good or bad.",
    },
    cta: "Share your review",
    unsubscribe: "Unsubscribe",
    smsAsk: {
      review_request: "Hi {{firstName}}, thanks for visiting {{brandName}}! How did we do? {{reviewLink}}",
      reminder: "Hi {{firstName}}, we'd still love your honest review of {{brandName}}: {{reviewLink}}",
    },
    stop: "Reply STOP to opt out",
  },
  es: {
    subject: "¿Qué tal lo hicimos, {{firstName}}?",
    greeting: {
      professional: "Estimado/a {{firstName}}:",
      friendly: "Hola {{firstName}}:",
      casual: "¡Hola {{firstName}}!",
    },
    ask: {
      review_request:
        "Gracias por elegir {{brandName}} en {{locationName}}. Nos gustaría conocer su opinión sincera sobre su visita.",
      reminder: "Un breve recordatorio: nos encantaría saber cómo fue su visita a {{locationName}}.",
    },
    cta: "Escribir una reseña",
    unsubscribe: "Darse de baja",
    smsAsk: {
      review_request: "Hola {{firstName}}, gracias por visitar {{brandName}}. ¿Qué tal lo hicimos? {{reviewLink}}",
      reminder: "Hola {{firstName}}, nos encantaría su opinión sincera sobre {{brandName}}: {{reviewLink}}",
    },
    stop: "Responda STOP para no recibir más mensajes (Reply STOP to opt out)",
  },
  fr: {
    subject: "Comment s'est passée votre visite, {{firstName}} ?",
    greeting: {
      professional: "Bonjour {{firstName}},",
      friendly: "Bonjour {{firstName}},",
      casual: "Salut {{firstName}} !",
    },
    ask: {
      review_request:
        "Merci d'avoir choisi {{brandName}} à {{locationName}}. Votre avis sincère sur votre visite nous serait précieux.",
      reminder: "Petit rappel : nous aimerions toujours savoir comment s'est passée votre visite à {{locationName}}.",
    },
    cta: "Donner mon avis",
    unsubscribe: "Se désabonner",
    smsAsk: {
      review_request: "Bonjour {{firstName}}, merci de votre visite chez {{brandName}} ! Votre avis : {{reviewLink}}",
      reminder: "Bonjour {{firstName}}, votre avis sincère sur {{brandName}} nous aiderait : {{reviewLink}}",
    },
    stop: "Répondez STOP pour vous désabonner (Reply STOP to opt out)",
  },
  de: {
    subject: "Wie war Ihr Besuch, {{firstName}}?",
    greeting: {
      professional: "Guten Tag {{firstName}},",
      friendly: "Hallo {{firstName}},",
      casual: "Hi {{firstName}}!",
    },
    ask: {
      review_request:
        "Danke, dass Sie {{brandName}} in {{locationName}} gewählt haben. Wir freuen uns über Ihre ehrliche Bewertung.",
      reminder: "Eine kurze Erinnerung: Wir würden gern erfahren, wie Ihr Besuch in {{locationName}} war.",
    },
    cta: "Bewertung schreiben",
    unsubscribe: "Abmelden",
    smsAsk: {
      review_request: "Hallo {{firstName}}, danke für Ihren Besuch bei {{brandName}}! Ihre Meinung: {{reviewLink}}",
      reminder: "Hallo {{firstName}}, wir freuen uns über Ihre ehrliche Bewertung: {{reviewLink}}",
    },
    stop: "Antworten Sie STOP zum Abmelden (Reply STOP to opt out)",
  },
};

const input = z
  .object({
    channels: z
      .array(z.enum(["email", "sms"]))
      .min(1)
      .max(2)
      .default(["email", "sms"]),
    purpose: z.enum(PURPOSES).default("review_request"),
    locale: z.enum(LOCALES).default("en"),
    brandId: z.string().min(1).max(64).optional(),
    instructions: z.string().max(1_000_000).optional().describe("guidance for the llm engine"),
    create: z.boolean().default(false).describe("save passing drafts as draft templates (tenant_user+)"),
    name: z.string().trim().min(1).max(150).optional(),
  })
  .openapi("TemplateGeneratorInput");

const output = z
  .object({
    brand: z.object({ id: z.string(), name: z.string(), voice: z.string().nullable(), tone: z.string().nullable() }),
    drafts: z.array(
      z.object({
        channel: z.enum(["email", "sms"]),
        locale: z.string(),
        subject: z.string().nullable(),
        bodyHtml: z.string().nullable(),
        bodyText: z.string(),
        tokens: z.array(z.string()),
        findings: z.array(FindingSchema).describe("the compliance lint of this draft"),
        passed: z.boolean(),
        sms: z
          .object({ encoding: z.enum(["GSM-7", "UCS-2"]), units: z.number().int(), segments: z.number().int() })
          .nullable(),
        createdTemplateId: z.string().nullable(),
      }),
    ),
    evidence: Evidences,
  })
  .openapi("TemplateGeneratorOutput");

type Output = z.infer<typeof output>;
type Brand = { id: string; name: string; brandVoice: string | null; brandTone: string | null };

const voiceOf = (b: Brand): Voice =>
  (["professional", "friendly", "casual"] as const).find((v) => b.brandVoice?.toLowerCase().includes(v)) ?? "friendly";

async function knownTokens(run: AgentRun) {
  const t = await run.tool<{ builtin: string[]; custom: string[] }>("template.tokens");
  return new Set([...t.builtin, ...t.custom]);
}

/** Lints (again) every draft: llm drafts get the same computed findings as rules drafts. */
async function lintDrafts(run: AgentRun, drafts: Output["drafts"]): Promise<Output["drafts"]> {
  const tokens = await knownTokens(run);
  return drafts.map((d) => {
    const findings = lintContent(
      { channel: d.channel, subject: d.subject, bodyHtml: d.bodyHtml, bodyText: d.bodyText },
      { source: "input", id: null },
      tokens,
    );
    return {
      ...d,
      tokens: extractTokens(d.subject, d.bodyHtml, d.bodyText),
      findings,
      passed: !findings.some(blocking),
      sms: d.channel === "sms" ? smsSegments(d.bodyText) : null,
    };
  });
}

export const templateGenerator = defineAgent({
  name: "agent.template-generator",
  title: "Template generator",
  description:
    "Writes email and SMS review-request templates in the brand's voice with valid {{tokens}}, linted by the " +
    "compliance rules. Returns drafts; create=true (write access) saves each passing draft as a draft template.",
  input,
  output,
  systemPrompt:
    "You write review-request messages for a business in its brand voice and tone. Ask every customer the same way for an " +
    "honest review (never only happy customers, never an incentive), use only the allowed {{tokens}}, include {{reviewLink}}, " +
    "{{unsubscribeLink}} in emails and 'Reply STOP to opt out' in SMS, and keep SMS within one or two segments.",
  tools: ["brand.get", "template.tokens"],
  range: () => null,
  async rules(run, i) {
    const brand = await run.tool<Brand>("brand.get", { brandId: i.brandId });
    const copy = COPY[i.locale];
    const voice = voiceOf(brand);
    const warm = brand.brandTone?.toLowerCase().includes("warm") ? " We truly appreciate it." : "";
    const drafts = i.channels.map((channel) => {
      if (channel === "email") {
        const text = `${copy.greeting[voice]}\n\n${copy.ask[i.purpose]}${warm}\n\n${copy.cta}: {{reviewLink}}\n\n${copy.unsubscribe}: {{unsubscribeLink}}`;
        const html = emailTemplateHtml({
          greeting: copy.greeting[voice],
          ask: `${copy.ask[i.purpose]}${warm}`,
          cta: copy.cta,
          unsubscribe: copy.unsubscribe,
        });
        return { channel, locale: i.locale, subject: copy.subject, bodyHtml: html, bodyText: text };
      }
      return {
        channel,
        locale: i.locale,
        subject: null,
        bodyHtml: null,
        bodyText: `${copy.smsAsk[i.purpose]} ${copy.stop}`,
      };
    });
    return {
      brand: { id: brand.id, name: brand.name, voice: brand.brandVoice, tone: brand.brandTone },
      drafts: await lintDrafts(
        run,
        drafts.map((d) => ({ ...d, tokens: [], findings: [], passed: true, sms: null, createdTemplateId: null })),
      ),
      evidence: [
        { source: "brand.get", id: brand.id, label: "brand voice", value: brand.brandVoice },
        { source: "brand.get", id: brand.id, label: "brand tone", value: brand.brandTone },
      ],
    };
  },
  async finish(run, i, out) {
    const drafts = await lintDrafts(run, out.drafts);
    if (!i.create) return { ...out, drafts };
    if (!run.ctx.canWrite) throw forbidden("Saving drafts as templates needs the tenant_user role or higher");
    const saved = [];
    for (const d of drafts) {
      if (!d.passed) {
        saved.push(d);
        continue;
      }
      const t = await createTemplate(run.ctx, {
        name: i.name
          ? `${i.name} (${d.channel})`
          : `${out.brand.name} ${i.purpose.replace("_", " ")} (${d.channel}, ${d.locale})`,
        channel: d.channel,
        subject: d.subject,
        bodyHtml: d.bodyHtml,
        bodyText: d.bodyText,
        locale: d.locale,
      });
      saved.push({ ...d, createdTemplateId: t.id });
    }
    return { ...out, drafts: saved };
  },
});
