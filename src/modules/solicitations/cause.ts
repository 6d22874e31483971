/**
 * Loop protection for automation rules: a solicitation created by a rule keeps the rule chain in
 * metadata.automation, and every solicitation.* event it emits carries those fields, so the rule
 * engine never lets the same rule fire again on its own sends (docs/automation.md).
 */
export interface AutomationFields {
  causedByRuleId: string;
  automationChain: string[];
  automationDepth: number;
}

export function causeOf(
  metadata: Record<string, unknown> | null | undefined,
): AutomationFields | Record<string, never> {
  const a = metadata?.automation as Partial<AutomationFields> | undefined;
  if (!a || typeof a.causedByRuleId !== "string") return {};
  return {
    causedByRuleId: a.causedByRuleId,
    automationChain: a.automationChain ?? [],
    automationDepth: a.automationDepth ?? 0,
  };
}
