// Every skill module registers itself here. A domain's skills land as one file calling its service.
// The agents' skills are added by the composition root (src/worker.ts: defineAgentSkills).
import "./agency";
import "./location";
import "./review-link";
import "./campaign";
import "./contact";
import "./review";
import "./widget";
import "./auto-reply";
import "./alert";
import "./inbox";
import "./insights";
import "./survey";
import "./white-label";
