// The MCP skill catalogue: every domain's skills, listed. A domain's skills are one file calling its
// service; the composition root registers this list, the tools derived from operations (skills/operation.ts)
// and the agents' skills (src/wiring.ts).
import type { Skill } from "./registry";
import { agencyListTenantsSkill } from "./agency";
import { locationFinderSkill } from "./location";
import { locationReviewLinksSkill } from "./review-link";
import { campaignGetSkill } from "./campaign";
import { contactSuppressSkill } from "./contact";
import { reviewListSkill, approvalListPendingSkill } from "./review";
import { reviewWidgetsSkill } from "./widget";
import { reviewAutoRepliesSkill } from "./auto-reply";
import { reviewAlertSubscriptionsSkill } from "./alert";
import { inboxGetSkill } from "./inbox";
import { reviewSummarySkill, campaignMetricsSkill, scoreLocationSkill, competitorListSkill, recommendationListSkill } from "./insights";
import { surveyStatsSkill, surveyResponsesSkill } from "./survey";
import { whiteLabelGetSkill } from "./white-label";
import { platformStatusSkill } from "./platform";

export const MCP_SKILLS = [
  agencyListTenantsSkill,
  locationFinderSkill,
  locationReviewLinksSkill,
  campaignGetSkill,
  contactSuppressSkill,
  reviewListSkill,
  approvalListPendingSkill,
  reviewWidgetsSkill,
  reviewAutoRepliesSkill,
  reviewAlertSubscriptionsSkill,
  inboxGetSkill,
  reviewSummarySkill,
  campaignMetricsSkill,
  scoreLocationSkill,
  competitorListSkill,
  recommendationListSkill,
  surveyStatsSkill,
  surveyResponsesSkill,
  whiteLabelGetSkill,
  platformStatusSkill,
] as unknown as Skill[];
