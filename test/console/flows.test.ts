import { beforeAll, describe, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { ingest, newLocation } from "../reviews/helpers";
import { ConsoleBrowser, textOf } from "./helpers";

// The console's daily work over HTTP, as a browser sends it (the Chromium flows: test/node/console-*.test.ts)

let w: World;
let location: { id: string };
const base = () => `/app/t/${w.tenantA.id}`;

beforeAll(async () => {
  w = await createWorld();
  location = await newLocation(w);
});

async function signedIn(name: keyof World["users"]) {
  const b = new ConsoleBrowser();
  const res = await b.signIn(w.users[name].email);
  expect(res.status).toBe(303);
  return b;
}

describe("an inbox item from arrival to a published reply", () => {
  it("is assigned, replied with a draft, approved by a manager, then seen published", async () => {
    const review = await ingest(w, {
      locationId: location.id,
      siteType: "first_party",
      rating: 2,
      text: "Waited <b>forty</b> minutes",
      authorName: "Ann <script>",
    });
    const user = await signedIn("tenantUser");
    const inbox = await user.get(`${base()}/inbox`);
    expect(inbox.status).toBe(200);
    expect(inbox.text).toContain("Waited &lt;b&gt;forty&lt;/b&gt; minutes");
    expect(inbox.text).not.toContain("<b>forty");
    const itemId = /\/inbox\/([a-z0-9]+)"/.exec(inbox.text)![1]!;
    const itemPath = `${base()}/inbox/${itemId}`;
    const item = await user.get(itemPath);
    expect(item.status).toBe(200);
    expect(textOf(item.text)).toContain("Ann <script> on our own page");

    const assigned = await user.post(`${itemPath}/assign`, {
      back: itemPath,
      type: "review",
      userId: w.users.tenantUser.id,
    });
    expect(assigned.status).toBe(303);
    expect(assigned.location).toBe(itemPath);
    const afterAssign = await user.follow(assigned);
    expect(textOf(afterAssign.text)).toContain("Assigned.");
    expect(textOf(afterAssign.text)).toMatch(/Assigned to Test User/);

    const drafted = await user.follow(
      await user.post(`${base()}/reviews/${review.id}/replies`, { back: itemPath, text: "Sorry for the wait, Ann." }),
    );
    expect(textOf(drafted.text)).toContain("The draft is saved.");
    const replyId = /\/replies\/([a-z0-9]+)\/submit/.exec(drafted.text)![1]!;
    const submitted = await user.follow(await user.post(`${base()}/replies/${replyId}/submit`, { back: itemPath }));
    expect(textOf(submitted.text)).toContain("Waiting for approval since");
    // a tenant_user cannot approve: the form is not offered, and a forged post is refused by the role check
    expect(submitted.text).not.toContain(`/replies/${replyId}/approve`);
    const forged = await user.follow(await user.post(`${base()}/replies/${replyId}/approve`, { back: itemPath }));
    expect(textOf(forged.text)).toContain("Your role here (Team member) does not allow this.");

    const manager = await signedIn("manager");
    const queue = await manager.get(`${base()}/approvals`);
    expect(textOf(queue.text)).toContain("Sorry for the wait, Ann.");
    const approved = await manager.follow(
      await manager.post(`${base()}/replies/${replyId}/approve`, {
        back: `${base()}/approvals`,
        text: "Sorry for the wait, Ann. We added a second desk.",
      }),
    );
    expect(textOf(approved.text)).toContain("Approved: it can be published now.");
    const published = await manager.follow(
      await manager.post(`${base()}/replies/${replyId}/publish`, { back: itemPath }),
    );
    expect(textOf(published.text)).toContain("Published.");
    expect(textOf(published.text)).toContain("Published on our review page");
    expect(textOf(published.text)).toContain("We added a second desk.");
  });

  it("a viewer sees the approvals but cannot approve", async () => {
    const review = await ingest(w, { locationId: location.id, siteType: "first_party", rating: 4, text: "Fine" });
    const user = await signedIn("tenantUser");
    const back = `${base()}/reviews/${review.id}`;
    const drafted = await user.follow(
      await user.post(`${base()}/reviews/${review.id}/replies`, { back, text: "Thanks!" }),
    );
    expect(drafted.status, textOf(drafted.text)).toBe(200);
    expect(textOf(drafted.text)).toContain("The draft is saved.");
    const replyId = /\/replies\/([a-z0-9]+)\/submit/.exec(drafted.text)![1]!;
    await user.post(`${base()}/replies/${replyId}/submit`, { back });
    const viewer = await signedIn("viewer");
    const queue = await viewer.get(`${base()}/approvals`);
    expect(queue.status).toBe(200);
    expect(textOf(queue.text)).toContain("Thanks!");
    expect(queue.text).not.toContain(`/replies/${replyId}/approve`);
    const refused = await viewer.follow(await viewer.post(`${base()}/replies/${replyId}/approve`, { back }));
    expect(textOf(refused.text)).toContain("Your role here (Viewer) does not allow this.");
    const still = await user.get(back);
    expect(textOf(still.text)).toContain("Waiting for approval since");
  });
});
