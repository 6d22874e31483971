// Every skill module registers itself here. A domain's skills land as one file calling its service.
import "./agency";
import "./location";
import "./campaign";
import "./contact";
import "./review";
import "./inbox";
import "./insights";
import "./survey";
import "./agent";
import "./white-label";
