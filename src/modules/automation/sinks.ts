import type { ServiceContext } from "../../lib/context";

/**
 * Extension points other modules fill in at start-up (the lead wires them in src/index.ts or the
 * owning module's jobs.ts). Until one is registered the action fails with a clear error in the run log.
 */

/** Who caused a write: lets the emitted events carry the loop-protection fields (docs/automation.md). */
export interface AutomationCause {
  ruleId: string;
  eventId: string;
  /** rule ids along the chain that led here, this rule last; events must carry it as data.automationChain */
  chain: string[];
  /** data.automationDepth for events this write emits */
  depth: number;
}

export interface SolicitationRequest {
  contactId: string;
  locationId: string;
  channel: "email" | "sms" | "whatsapp";
  campaignId?: string;
  templateId?: string;
  /** events the send emits should carry data.causedByRuleId = automation.ruleId, automationChain and automationDepth */
  automation: AutomationCause;
}

/** [sending]'s createSolicitations(ctx, requests): applies the policy engine (consent, caps, quiet hours, ...). */
export type SolicitationSender = (ctx: ServiceContext, requests: SolicitationRequest[]) => Promise<unknown>;

let solicitationSender: SolicitationSender | null = null;

export const registerSolicitationSender = (fn: SolicitationSender | null) => {
  solicitationSender = fn;
};

export const getSolicitationSender = () => solicitationSender;
