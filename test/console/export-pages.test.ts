// The console's data export over HTTP (#46 item 9): a tenant admin starts the export, its page (an address that
// survives a reload) shows the progress the client part polls from the status address until the file is ready,
// then the download is REST's JSON Lines; the list shows each export; allowDataExport off is a sentence.
// Who sees which page: matrix.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../helpers/poll";
import { createWorld, type World } from "../helpers/seed";
import { ConsoleBrowser, textOf } from "./helpers";

let w: World;
let admin: ConsoleBrowser;
const t = (p = "") => `/app/t/${w.tenantA.id}${p}`;

beforeAll(async () => {
  w = await createWorld();
  for (const email of ["one@example.test", "two@example.test"])
    expect((await w.as("tenantAdmin").post("/v1/contacts", { email })).status).toBe(201);
  admin = new ConsoleBrowser();
  await admin.seededSession(w.users.tenantAdmin.id);
}, 60_000);

describe("Data export", () => {
  it("starts an export, follows its progress at its own address, then downloads REST's file", async () => {
    expect(textOf((await admin.get(t("/data-export"))).text)).toContain("No export yet. Start one above.");
    const started = await admin.post(t("/data-export"));
    expect(started.status).toBe(303);
    const id = /\/data-export\/([A-Za-z0-9_]+)$/.exec(started.location!)![1]!;
    const first = await admin.follow(started);
    expect(textOf(first.text)).toContain("The export has started. This page shows its progress");
    // the client part's mount point, with the state it starts from and the address it polls
    expect(first.text).toContain(`data-poll="${t(`/data-export/${id}/status`)}"`);
    expect(first.text).toMatch(/data-state="\{&quot;status&quot;:&quot;(queued|running|succeeded)&quot;/);

    const status = await pollUntil(
      async () => JSON.parse((await admin.get(t(`/data-export/${id}/status`))).text),
      (s) => s.status === "succeeded",
      30_000,
    );
    const rest = (await w.as("tenantAdmin").get(`/v1/exports/${id}`)).body;
    expect(status).toEqual({
      status: "succeeded",
      done: rest.progress.done,
      total: rest.progress.total,
      error: null,
      download: t(`/data-export/${id}/download`),
    });
    expect(status.done).toBeGreaterThan(2);

    // a reload of the export's address shows where it is: done, with the file
    const done = await admin.get(t(`/data-export/${id}`));
    const text = textOf(done.text);
    expect(text).toContain(`The file is ready: ${status.done} rows.`);
    expect(text).toMatch(/Rows per table .* contacts 2/);
    expect(done.text).toContain(`href="${t(`/data-export/${id}/download`)}"`);

    const file = await admin.get(t(`/data-export/${id}/download`));
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toContain("application/x-ndjson");
    expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename="tenant-export-.+\.jsonl"$/);
    const lines = file.text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(status.done);
    expect(
      lines
        .filter((l) => l.table === "contacts")
        .map((l) => l.row.email)
        .sort(),
    ).toEqual(["one@example.test", "two@example.test"]);

    const list = textOf((await admin.get(t("/data-export"))).text);
    expect(list).toMatch(
      new RegExp(`Exports \\(1\\), newest first .* succeeded ${status.done} of ${status.total} Download`),
    );
  });

  it("an unknown export is the 404 page; with allowDataExport off, starting one is refused as a sentence", async () => {
    expect((await admin.get(t("/data-export/job_doesnotexist000"))).status).toBe(404);
    expect((await admin.get(t("/data-export/job_doesnotexist000/status"))).status).toBe(404);
    await w.as("tenantAdmin").put("/v1/compliance", { allowDataExport: false });
    const refused = await admin.follow(await admin.post(t("/data-export")));
    expect(textOf(refused.text)).toContain("Data export is switched off in this business's compliance settings");
    await w.as("tenantAdmin").put("/v1/compliance", { allowDataExport: true });
    expect((await w.as("tenantAdmin").get("/v1/exports")).body.total).toBe(1);
  });
});
