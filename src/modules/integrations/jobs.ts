import { registerJobRunner } from "../jobs/runner";
import { runCrmImport } from "./crm-import";

registerJobRunner("crm_import", runCrmImport);
