// Every agent registers itself here.
import "./campaign-strategist";
import "./compliance-critic";
import "./experiment-designer";
import "./operator-copilot";
import "./optimization";
import "./outcome-analyst";
import "./reputation-insight";
import "./template-generator";
import "./reply-drafter";
