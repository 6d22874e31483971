// The console's only script (docs/console.md, "Client parts"): every page works without it; with it, small
// parts. Built by scripts/build-browser-code.mjs with hono/jsx/dom (no React), served from /app/assets.
import { render } from "hono/jsx/dom";
import { CampaignProgress } from "./campaign-progress";
import { enableCopyButtons } from "./copy";
import { ExportProgress } from "./export-progress";
import type { ExportState } from "./export-state";
import { ImportProgress } from "./import-progress";
import type { ImportState } from "./import-state";
import { InboxLive } from "./inbox-live";
import { TemplatePreview } from "./template-preview";

enableCopyButtons(document);

const live = document.getElementById("inbox-live");
if (live?.dataset.poll && live.dataset.newest !== undefined)
  render(<InboxLive pollUrl={live.dataset.poll} newest={live.dataset.newest} />, live);

const exportLive = document.getElementById("export-live");
if (exportLive?.dataset.poll && exportLive.dataset.state)
  render(
    <ExportProgress pollUrl={exportLive.dataset.poll} initial={JSON.parse(exportLive.dataset.state) as ExportState} />,
    exportLive,
  );

const campaignLive = document.getElementById("campaign-live");
if (campaignLive?.dataset.poll)
  render(
    <CampaignProgress
      pollUrl={campaignLive.dataset.poll}
      initial={campaignLive.innerHTML}
      finished={campaignLive.dataset.finished === "true"}
    />,
    campaignLive,
  );

const preview = document.getElementById("template-preview");
const editor = document.getElementById("template-form");
if (preview?.dataset.url && editor instanceof HTMLFormElement)
  render(<TemplatePreview url={preview.dataset.url} form={editor} initial={preview.innerHTML} />, preview);

const importLive = document.getElementById("import-live");
if (importLive?.dataset.poll && importLive.dataset.state)
  render(
    <ImportProgress pollUrl={importLive.dataset.poll} initial={JSON.parse(importLive.dataset.state) as ImportState} />,
    importLive,
  );
