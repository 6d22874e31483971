// The agent catalogue: every agent, listed (nothing registers itself on import).
import type { AgentDefinition } from "../types";
import { campaignStrategist } from "./campaign-strategist";
import { complianceCritic } from "./compliance-critic";
import { experimentDesigner } from "./experiment-designer";
import { operatorCopilot } from "./operator-copilot";
import { optimization } from "./optimization";
import { outcomeAnalyst } from "./outcome-analyst";
import { replyDrafter } from "./reply-drafter";
import { reputationInsight } from "./reputation-insight";
import { templateGenerator } from "./template-generator";

export const AGENTS = [
  campaignStrategist,
  complianceCritic,
  experimentDesigner,
  operatorCopilot,
  optimization,
  outcomeAnalyst,
  reputationInsight,
  templateGenerator,
  replyDrafter,
] as unknown as AgentDefinition[];
