/** Who caused a write: lets the emitted events carry the loop-protection fields (docs/automation.md). */
export interface AutomationCause {
  ruleId: string;
  eventId: string;
  /** rule ids along the chain that led here, this rule last; events carry it as data.automationChain */
  chain: string[];
  /** data.automationDepth for events this write emits */
  depth: number;
}
