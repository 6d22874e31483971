/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { INBOX_ITEM_TYPES, INBOX_STATUSES } from "../../../db/schema";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import {
  addInboxNoteOperation,
  assignInboxOperation,
  getInboxItemOperation,
  listInboxOperation,
  setInboxStatusOperation,
  setInboxTagsOperation,
} from "../../inbox/operations";
import type { InboxItemDetailSchema, InboxItemSchema } from "../../inbox/schemas";
import { listLocationsOperation } from "../../locations/operations";
import type { LocationSchema } from "../../locations/schemas";
import { listUsersOperation } from "../../users/operations";
import type { TenantUserDto } from "../../users/schemas";
import { Pager, Stars, siteName, tenantHref, tenantOf, When } from "../atoms";
import { act, backOf, type CC, can, csrfOf, formOf, page, redirectTo, refusesFields } from "../kit";
import { Csrf } from "../layout";
import { NewReply, ReplyCard } from "./replies";

/*
 * The inbox (docs/console.md): reviews and feedback in one list, newest first, in keyset pages, filtered as
 * GET /v1/inbox filters (the same operation, inbox.list); an item with its history, assign, tag, close, notes,
 * and its replies. A small client part tells the open list when newer items arrived (client/inbox-live.tsx).
 */

type Item = z.infer<typeof InboxItemSchema>;
type ItemDetail = z.infer<typeof InboxItemDetailSchema>;
type Location = z.infer<typeof LocationSchema>;

const STATUS_LABEL: Record<(typeof INBOX_STATUSES)[number], string> = {
  new: "New",
  assigned: "Assigned",
  in_progress: "In progress",
  responded: "Responded",
  resolved: "Closed",
  ignored: "Ignored",
};

/** The list's filters as the inbox operation names them (REST query parameters). */
const FILTERS = ["status", "type", "locationId", "assignedToUserId"] as const;

function filtersOf(c: CC): Record<string, string | undefined> {
  return Object.fromEntries(FILTERS.map((k) => [k, c.req.query(k) || undefined]));
}

/** The people of this tenant (GET /v1/users: any role reads it), for names and the assign form. */
async function peopleOf(c: CC) {
  const list = await callOperation<Page<TenantUserDto>>(c, listUsersOperation, { query: { limit: "200" } });
  return list.data.filter((u) => u.isActive);
}

async function locationsOf(c: CC) {
  return (await callOperation<Page<Location>>(c, listLocationsOperation, { query: { limit: "200" } })).data;
}

function InboxFilters(props: {
  f: Record<string, string | undefined>;
  locations: Location[];
  people: { id: string; name: string; email: string }[];
  me: string;
}) {
  const { f } = props;
  return (
    <form method="get" class="filters" aria-label="Filter the inbox">
      <div>
        <label for="status">Status</label>
        <select id="status" name="status">
          <option value="">Any</option>
          {INBOX_STATUSES.map((s) => (
            <option value={s} selected={f.status === s}>
              {STATUS_LABEL[s]}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="type">Kind</label>
        <select id="type" name="type">
          <option value="">Reviews and feedback</option>
          {INBOX_ITEM_TYPES.map((t) => (
            <option value={t} selected={f.type === t}>
              {t === "review" ? "Reviews" : "Private feedback"}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="locationId">Location</label>
        <select id="locationId" name="locationId">
          <option value="">All locations</option>
          {props.locations.map((l) => (
            <option value={l.id} selected={f.locationId === l.id}>
              {l.name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="assignedToUserId">Assigned to</label>
        <select id="assignedToUserId" name="assignedToUserId">
          <option value="">Anyone</option>
          <option value={props.me} selected={f.assignedToUserId === props.me}>
            Me
          </option>
          {props.people
            .filter((p) => p.id !== props.me)
            .map((p) => (
              <option value={p.id} selected={f.assignedToUserId === p.id}>
                {p.name || p.email}
              </option>
            ))}
        </select>
      </div>
      <div class="actions">
        <button type="submit" class="secondary">
          Filter
        </button>
      </div>
    </form>
  );
}

export async function inboxPage(c: CC): Promise<Response> {
  const f = filtersOf(c);
  const cursor = c.req.query("cursor") || undefined;
  const [tenant, list, locations, people] = await Promise.all([
    tenantOf(c),
    callOperation<Page<Item>>(c, listInboxOperation, { query: { ...f, cursor, limit: "25" } }),
    locationsOf(c),
    peopleOf(c),
  ]);
  const names = new Map(people.map((p) => [p.id, p.name || p.email]));
  const places = new Map(locations.map((l) => [l.id, l.name]));
  const base = tenantHref(c, "/inbox");
  const query = new URLSearchParams(Object.entries(f).filter((e): e is [string, string] => !!e[1])).toString();
  const newest = list.data[0]?.createdAt;
  return page(
    c,
    { title: "Inbox", section: "inbox", tenant },
    <>
      <h1>Inbox</h1>
      <InboxFilters f={f} locations={locations} people={people} me={c.var.consoleSession!.principal.userId} />
      <div class="actions">
        <p class="muted" role="status">
          {list.total} item{list.total === 1 ? "" : "s"}
        </p>
        <a href={`${base}${query ? `?${query}` : ""}`}>Refresh</a>
        {!cursor && newest && (
          <div
            id="inbox-live"
            data-poll={`${base}/fresh?${query ? `${query}&` : ""}after=${encodeURIComponent(newest)}`}
            data-newest={newest}
          ></div>
        )}
      </div>
      {list.data.length === 0 ? (
        <p class="card">Nothing here. New reviews and feedback land here as they arrive.</p>
      ) : (
        <ul class="items">
          {list.data.map((i) => (
            <li>
              <div class="item-head">
                <a href={`${base}/${encodeURIComponent(i.id)}`}>
                  {i.type === "review" ? "Review" : "Private feedback"}
                  {i.locationId ? ` at ${places.get(i.locationId) ?? "a location"}` : ""}
                </a>
                <span class={i.status === "new" ? "status warn" : "status"}>{STATUS_LABEL[i.status]}</span>
              </div>
              {i.rating !== null && <Stars rating={i.rating} />}
              {i.excerpt && <p>{i.excerpt}</p>}
              <ul class="meta">
                <li>
                  <When iso={i.createdAt} />
                </li>
                {i.assignedToUserId && <li>assigned to {names.get(i.assignedToUserId) ?? "someone"}</li>}
                {i.escalatedAt && <li class="status bad">escalated</li>}
                {i.sentiment && <li>{i.sentiment}</li>}
                {i.tags.map((t) => (
                  <li class="tag">{t}</li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
      <Pager
        base={base}
        params={f}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!cursor}
      />
    </>,
  );
}

/** GET …/inbox/fresh?after=: how many items of the first page (same filters) arrived after `after` (JSON). */
export async function inboxFresh(c: CC): Promise<Response> {
  const after = c.req.query("after") ?? "";
  const list = await callOperation<Page<Item>>(c, listInboxOperation, { query: { ...filtersOf(c), limit: "50" } });
  return c.json({ newer: list.data.filter((i) => i.createdAt > after).length }, 200, { "cache-control": "no-store" });
}

export async function inboxItemPage(c: CC): Promise<Response> {
  const id = c.req.param("itemId") ?? "";
  const typeQ = c.req.query("type");
  const type = typeQ === "review" || typeQ === "feedback" ? typeQ : undefined;
  const [tenant, item, people, locations, csrf] = await Promise.all([
    tenantOf(c),
    callOperation<ItemDetail>(c, getInboxItemOperation, { params: { id }, query: { type } }),
    peopleOf(c),
    locationsOf(c),
    csrfOf(c),
  ]);
  const names = new Map(people.map((p) => [p.id, p.name || p.email]));
  const base = tenantHref(c);
  const back = tenantHref(c, `/inbox/${encodeURIComponent(item.id)}`);
  const actionPath = (a: string) => `${back}/${a}`;
  const writer = can(c, "tenant_user");
  const review = item.review;
  const fb = item.feedback;
  const place = locations.find((l) => l.id === item.locationId)?.name;
  const openDraft = item.responses.some(
    (r) => r.status === "draft" || r.status === "submitted" || r.status === "approved",
  );
  const Back = () => <input type="hidden" name="back" value={back} />;
  const history: { at: string; text: string }[] = [
    { at: item.createdAt, text: item.type === "review" ? "Review arrived" : "Feedback arrived" },
    ...(item.escalatedAt
      ? [{ at: item.escalatedAt, text: `Escalated${item.escalationReason ? `: ${item.escalationReason}` : ""}` }]
      : []),
    ...item.notes.map((n) => ({
      at: n.createdAt,
      text: `Note by ${n.authorType === "user" ? (names.get(n.authorId ?? "") ?? "a person") : n.authorType === "system" ? "the system" : "an API key"}: ${n.note}`,
    })),
    ...item.responses.flatMap((r) => [
      { at: r.createdAt, text: `Reply drafted${r.aiGenerated ? " by AI" : ""}` },
      ...(r.submittedAt ? [{ at: r.submittedAt, text: "Reply submitted for approval" }] : []),
      ...(r.decidedAt
        ? [{ at: r.decidedAt, text: r.status === "rejected" && !r.moderation ? "Reply rejected" : "Reply approved" }]
        : []),
      ...(r.publishedAt ? [{ at: r.publishedAt, text: "Reply published" }] : []),
    ]),
  ].sort((a, b) => a.at.localeCompare(b.at));
  return page(
    c,
    { title: item.type === "review" ? "Review" : "Feedback", section: "inbox", tenant },
    <>
      <p>
        <a href={tenantHref(c, "/inbox")}>Back to the inbox</a>
      </p>
      <h1>
        {item.type === "review"
          ? `${review?.authorName ?? "A reviewer"} on ${siteName(review?.siteType ?? "")}`
          : "Private feedback"}
      </h1>
      <div class="two">
        <div>
          <section class="card" aria-label="What they wrote">
            {item.rating !== null && <Stars rating={item.rating} />}
            {review?.text || fb?.text ? (
              <blockquote>{review?.text ?? fb?.text}</blockquote>
            ) : (
              <p class="muted">No text, only a rating.</p>
            )}
            <ul class="meta">
              {place && <li>{place}</li>}
              <li>
                <When iso={review?.publishedAt ?? item.createdAt} />
              </li>
              {review?.sentiment && <li>sentiment {review.sentiment}</li>}
              {(review?.topics ?? fb?.topics ?? []).map((t) => (
                <li class="tag">{t}</li>
              ))}
            </ul>
            {fb?.callbackRequested && <p class="warnbox">The customer asked to be called back.</p>}
            {review?.externalUrl && (
              <p>
                <a href={review.externalUrl}>Open it on {siteName(review.siteType)}</a>
              </p>
            )}
            {review && (
              <p>
                <a href={`${base}/reviews/${encodeURIComponent(review.id)}`}>The review's page</a>
              </p>
            )}
          </section>
          {review && (
            <section aria-labelledby="replies">
              <h2 id="replies">Replies</h2>
              {item.responses.length === 0 && <p class="muted">No reply yet.</p>}
              {item.responses.map((r) => (
                <ReplyCard
                  c={c}
                  r={r}
                  site={review.siteType}
                  reviewUrl={review.externalUrl}
                  csrf={csrf}
                  back={back}
                  base={base}
                />
              ))}
              {writer && !openDraft && <NewReply reviewId={review.id} csrf={csrf} back={back} base={base} />}
            </section>
          )}
        </div>
        <div>
          <section class="card" aria-labelledby="state">
            <h2 id="state">{STATUS_LABEL[item.status]}</h2>
            <dl class="facts">
              <dt>Assigned to</dt>
              <dd>{item.assignedToUserId ? (names.get(item.assignedToUserId) ?? "someone") : "nobody"}</dd>
              <dt>Tags</dt>
              <dd>{item.tags.length ? item.tags.join(", ") : "none"}</dd>
            </dl>
            {writer && (
              <>
                <form method="post" action={actionPath("assign")}>
                  <Csrf token={csrf} />
                  <Back />
                  <input type="hidden" name="type" value={item.type} />
                  <label for="assignee">Assign to</label>
                  <select id="assignee" name="userId">
                    <option value="">Nobody</option>
                    {people.map((p) => (
                      <option value={p.id} selected={p.id === item.assignedToUserId}>
                        {p.name || p.email}
                      </option>
                    ))}
                  </select>
                  <div class="actions">
                    <button type="submit" class="secondary">
                      Assign
                    </button>
                  </div>
                </form>
                <form method="post" action={actionPath("tags")}>
                  <Csrf token={csrf} />
                  <Back />
                  <input type="hidden" name="type" value={item.type} />
                  <label for="tags">Tags (separated by commas)</label>
                  <input id="tags" name="tags" type="text" value={item.tags.join(", ")} maxlength={900} />
                  <div class="actions">
                    <button type="submit" class="secondary">
                      Save tags
                    </button>
                  </div>
                </form>
                <div class="actions">
                  {item.status === "resolved" || item.status === "ignored" ? (
                    <form method="post" action={actionPath("status")}>
                      <Csrf token={csrf} />
                      <Back />
                      <input type="hidden" name="status" value={item.status === "ignored" ? "new" : "in_progress"} />
                      <button type="submit" class="secondary">
                        Reopen
                      </button>
                    </form>
                  ) : (
                    <form method="post" action={actionPath("status")}>
                      <Csrf token={csrf} />
                      <Back />
                      <input type="hidden" name="status" value="resolved" />
                      <button type="submit">Close</button>
                    </form>
                  )}
                </div>
              </>
            )}
          </section>
          <section class="card" aria-labelledby="history">
            <h2 id="history">History</h2>
            <ol class="history">
              {history.map((h) => (
                <li>
                  <When iso={h.at} />: {h.text}
                </li>
              ))}
            </ol>
            {writer && (
              <form method="post" action={actionPath("note")}>
                <Csrf token={csrf} />
                <Back />
                <input type="hidden" name="type" value={item.type} />
                <label for="note">Add a note (only your team sees it)</label>
                <textarea id="note" name="note" required maxlength={5000}></textarea>
                <div class="actions">
                  <button type="submit" class="secondary">
                    Add the note
                  </button>
                </div>
              </form>
            )}
          </section>
        </div>
      </div>
    </>,
  );
}

// ---- the item's forms: each the operation of its REST twin

const itemId = (c: CC) => c.req.param("itemId") ?? "";
const kind = (v: string) => (v === "review" || v === "feedback" ? v : undefined);

export async function assignSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  return act(c, back, async () => {
    const userId = form.one("userId") || null;
    await callOperation(c, assignInboxOperation, {
      params: { id: itemId(c) },
      body: { userId, type: kind(form.one("type")) },
    });
    return redirectTo(c, back, { kind: "notice", text: userId ? "Assigned." : "Unassigned." });
  });
}

export async function tagsSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  return act(c, back, async () => {
    const tags = form
      .one("tags")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    await callOperation(c, setInboxTagsOperation, {
      params: { id: itemId(c) },
      body: { tags, type: kind(form.one("type")) },
    });
    return redirectTo(c, back, { kind: "notice", text: "Tags saved." });
  });
}

export async function statusSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  return act(c, back, async () => {
    const status = form.one("status");
    await callOperation(c, setInboxStatusOperation, { body: { itemIds: [itemId(c)], status } });
    return redirectTo(c, back, { kind: "notice", text: status === "resolved" ? "Closed." : "Reopened." });
  });
}

/** REST: POST /v1/inbox/{id}/notes (tenant_user); its schema's refusal of the note is "write it first". */
export async function noteSubmit(c: CC): Promise<Response> {
  const form = await formOf(c);
  const back = backOf(c, form.one("back"));
  return act(c, back, async () => {
    try {
      await callOperation(c, addInboxNoteOperation, {
        params: { id: itemId(c) },
        body: { note: form.one("note"), type: kind(form.one("type")) },
      });
    } catch (e) {
      if (refusesFields(e, ["note", "type"]))
        return redirectTo(c, back, { kind: "error", text: "Write the note first." });
      throw e;
    }
    return redirectTo(c, back, { kind: "notice", text: "Note added." });
  });
}
