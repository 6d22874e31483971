// The MCP skill catalogue: every domain's skills, listed. A domain's skills are one file calling its
// service; the composition root registers this list, the tools derived from operations (skills/operation.ts)
// and the agents' skills (src/wiring.ts).

import { agencyListTenantsSkill } from "./agency";
import { reviewAlertSubscriptionsSkill } from "./alert";
import { reviewAutoRepliesSkill } from "./auto-reply";
import { campaignGetSkill } from "./campaign";
import { inboxGetSkill } from "./inbox";
import {
  campaignMetricsSkill,
  competitorListSkill,
  recommendationListSkill,
  reviewSummarySkill,
  scoreLocationSkill,
} from "./insights";
import { locationFinderSkill } from "./location";
import { campaignSendBulkSkill, contactImportCsvSkill, reviewSyncSkill, tenantExportSkill } from "./long-jobs";
import { platformStatusSkill } from "./platform";
import type { Skill } from "./registry";
import { approvalListPendingSkill, reviewListSkill } from "./review";
import { locationReviewLinksSkill } from "./review-link";
import { surveyResponsesSkill, surveyStatsSkill } from "./survey";
import { whiteLabelGetSkill } from "./white-label";
import { reviewWidgetsSkill } from "./widget";

export const MCP_SKILLS = [
  agencyListTenantsSkill,
  locationFinderSkill,
  locationReviewLinksSkill,
  campaignGetSkill,
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
  // the long jobs, which answer a task handle to clients with the tasks extension (mcp/tasks.ts)
  contactImportCsvSkill,
  campaignSendBulkSkill,
  reviewSyncSkill,
  tenantExportSkill,
] as unknown as Skill[];
