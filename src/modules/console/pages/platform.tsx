/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import type { Page } from "../../../lib/pagination";
import { getAdminStatusOperation } from "../../admin/operations";
import type { PlatformStatusSchema } from "../../admin/status.schemas";
import { listAdminTenantsOperation } from "../../admin/tenants.operations";
import type { DeadLetterSchema, ReplayedDeadLetterSchema } from "../../jobs/dead-letters.schemas";
import { listDeadLettersOperation, replayDeadLetterOperation } from "../../jobs/operations";
import type { AdminTenantSchema } from "../../tenants/schemas";
import { Pager, When } from "../atoms";
import { act, type CC, csrfOf, page, redirectTo } from "../kit";
import { Csrf } from "../layout";

/*
 * The platform admin's pages (docs/console.md, issue #46 item 12), outside any tenant, behind REST /admin's
 * check (guards.ts forPlatformAdmins), each read and form through its /admin operation (callOperation):
 *   - /app/platform: GET /admin/status (queues, sweeps, shards, tenant moves, provider errors);
 *   - /app/platform/tenants: GET /admin/tenants, every tenant across the shards, searched, keyset pages;
 *   - /app/platform/dead-letters: GET /admin/dead-letters, and Replay: POST /admin/dead-letters/{id}/replay.
 */

const PLATFORM = "/app/platform";

/** The platform pages' own links (their section in the header is "Platform"). */
function PlatformNav({ here }: { here: "status" | "tenants" | "dead-letters" }) {
  const links = [
    ["status", "Status", PLATFORM],
    ["tenants", "Tenants", `${PLATFORM}/tenants`],
    ["dead-letters", "Dead letters", `${PLATFORM}/dead-letters`],
  ] as const;
  return (
    <nav aria-label="Platform">
      <ul class="meta">
        {links.map(([key, label, href]) => (
          <li>
            <a href={href} aria-current={key === here ? "page" : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

const bytesText = (n: number | null) =>
  n === null ? "not measured yet" : n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${(n / 1e6).toFixed(1)} MB`;

export async function platformStatusPage(c: CC): Promise<Response> {
  const s = await callOperation<z.infer<typeof PlatformStatusSchema>>(c, getAdminStatusOperation);
  return page(
    c,
    { title: "Platform status", section: "platform" },
    <>
      <PlatformNav here="status" />
      <h1>Platform status</h1>
      <p class="muted">
        As of <When iso={s.generatedAt} />. Look first at failed or stale sweeps, dead letters, and providers with
        errors (docs/deploy.md).
      </p>
      <table class="rows">
        <caption>Queues</caption>
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col">Waiting</th>
            <th scope="col">Oldest waiting</th>
            <th scope="col">Dead letters (24 h)</th>
          </tr>
        </thead>
        <tbody>
          {s.queues.map((q) => (
            <tr>
              <th scope="row" data-label="Queue">
                {q.queue}
              </th>
              <td data-label="Waiting">{q.waiting ?? <span class="muted">not told</span>}</td>
              <td data-label="Oldest waiting">
                {q.oldestWaitingAt ? <When iso={q.oldestWaitingAt} /> : <span class="muted">none</span>}
              </td>
              <td data-label="Dead letters (24 h)">
                {q.deadLetters24h > 0 ? (
                  <a class="status bad" href={`${PLATFORM}/dead-letters?queue=${encodeURIComponent(q.queue)}`}>
                    {q.deadLetters24h}
                  </a>
                ) : (
                  0
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {s.sweeps.length === 0 ? (
        <p class="card">No sweep has run yet: the cron triggers record each run here.</p>
      ) : (
        <table class="rows">
          <caption>Sweeps, each one's last run</caption>
          <thead>
            <tr>
              <th scope="col">Sweep</th>
              <th scope="col">Cron</th>
              <th scope="col">Last run</th>
              <th scope="col">Outcome</th>
              <th scope="col">Last success</th>
            </tr>
          </thead>
          <tbody>
            {s.sweeps.map((w) => (
              <tr>
                <th scope="row" data-label="Sweep">
                  {w.sweep}
                  {w.stale && <span class="status bad"> stale: its trigger is not firing</span>}
                </th>
                <td data-label="Cron">
                  <code>{w.cron}</code>
                </td>
                <td data-label="Last run">
                  <When iso={w.lastRunAt} /> <span class="muted small">({w.durationMs} ms)</span>
                </td>
                <td data-label="Outcome">
                  <span class={w.outcome === "ok" ? "status ok" : "status bad"}>{w.outcome}</span>
                  {w.error && <p class="small">{w.error}</p>}
                </td>
                <td data-label="Last success">
                  <When iso={w.lastOkAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <table class="rows">
        <caption>Shards</caption>
        <thead>
          <tr>
            <th scope="col">Shard</th>
            <th scope="col">Tenants</th>
            <th scope="col">Size</th>
            <th scope="col">Full</th>
          </tr>
        </thead>
        <tbody>
          {s.shards.map((d) => (
            <tr>
              <th scope="row" data-label="Shard">
                {d.shard}
              </th>
              <td data-label="Tenants">{d.tenants}</td>
              <td data-label="Size">
                {bytesText(d.bytes)}
                {d.measuredAt && (
                  <span class="muted small">
                    {" "}
                    (<When iso={d.measuredAt} />)
                  </span>
                )}
              </td>
              <td data-label="Full">{d.fullness === null ? "–" : `${Math.round(d.fullness * 100)}%`}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {s.tenantMoves.length === 0 ? (
        <p class="card">No tenant is being moved between shards.</p>
      ) : (
        <table class="rows">
          <caption>Tenant moves not finished</caption>
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col">From, to</th>
              <th scope="col">State</th>
              <th scope="col">Rows copied</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {s.tenantMoves.map((m) => (
              <tr>
                <th scope="row" data-label="Tenant">
                  <a href={`/app/t/${encodeURIComponent(m.tenantId)}`}>{m.tenantId}</a>
                </th>
                <td data-label="From, to">
                  {m.from} → {m.to}
                </td>
                <td data-label="State">{m.state}</td>
                <td data-label="Rows copied">{m.rows}</td>
                <td data-label="Started">
                  <When iso={m.startedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {s.providers.length === 0 ? (
        <p class="card">No provider error in the last hour.</p>
      ) : (
        <table class="rows">
          <caption>Providers with errors in the last hour</caption>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Send errors</th>
              <th scope="col">Sync errors</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {s.providers.map((p) => (
              <tr>
                <th scope="row" data-label="Provider">
                  {p.provider}
                </th>
                <td data-label="Send errors">{p.sendErrors1h}</td>
                <td data-label="Sync errors">{p.syncErrors1h}</td>
                <td data-label="Last error">
                  <When iso={p.lastErrorAt} />
                  <p class="small">{p.lastError}</p>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>,
  );
}

export async function platformTenantsPage(c: CC): Promise<Response> {
  const query = { search: c.req.query("search") || undefined, cursor: c.req.query("cursor") || undefined };
  const list = await callOperation<Page<z.infer<typeof AdminTenantSchema>>>(c, listAdminTenantsOperation, {
    query: { ...query, limit: "50" },
  });
  const base = `${PLATFORM}/tenants`;
  return page(
    c,
    { title: "Tenants", section: "platform" },
    <>
      <PlatformNav here="tenants" />
      <h1>Tenants</h1>
      <form method="get" class="filters">
        <div>
          <label for="search">Name or short name</label>
          <input id="search" name="search" type="search" value={query.search ?? ""} maxlength={100} />
        </div>
        <div class="actions">
          <button type="submit" class="secondary">
            Search
          </button>
        </div>
      </form>
      {list.data.length === 0 ? (
        <p class="card">
          {query.search ? "No tenant matches this name." : "No tenant yet: an agency adds its businesses."}
        </p>
      ) : (
        <table class="rows">
          <caption>Tenants ({list.total}), newest first</caption>
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col">Plan</th>
              <th scope="col">State</th>
              <th scope="col">Shard</th>
              <th scope="col">People</th>
              <th scope="col">Contacts</th>
              <th scope="col">Added</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((t) => (
              <tr>
                <th scope="row" data-label="Tenant">
                  <a href={`/app/t/${encodeURIComponent(t.id)}`}>{t.name}</a>
                  <p class="muted small">
                    {t.slug} · agency {t.agencyId}
                  </p>
                </th>
                <td data-label="Plan">{t.plan}</td>
                <td data-label="State">
                  <span class={t.isActive ? "status ok" : "status"}>{t.isActive ? "active" : "paused"}</span>
                </td>
                <td data-label="Shard">{t.shard}</td>
                <td data-label="People">{t._count.users}</td>
                <td data-label="Contacts">{t._count.contacts}</td>
                <td data-label="Added">
                  <When iso={t.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={base}
        params={{ search: query.search }}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!query.cursor}
      />
    </>,
  );
}

const DEAD_LETTERS = `${PLATFORM}/dead-letters`;

export async function deadLettersPage(c: CC): Promise<Response> {
  const query = { queue: c.req.query("queue") || undefined, cursor: c.req.query("cursor") || undefined };
  const [list, csrf] = await Promise.all([
    callOperation<Page<z.infer<typeof DeadLetterSchema>>>(c, listDeadLettersOperation, {
      query: { ...query, limit: "50" },
    }),
    csrfOf(c),
  ]);
  return page(
    c,
    { title: "Dead letters", section: "platform" },
    <>
      <PlatformNav here="dead-letters" />
      <h1>Dead letters</h1>
      <p class="muted">
        Queue messages that used up their retries. Replay puts one back on its queue (every consumer is idempotent); a
        failed webhook delivery is sent again with the same webhook-id. One that fails again comes back here.
      </p>
      <form method="get" class="filters">
        <div>
          <label for="queue">Queue</label>
          <input id="queue" name="queue" type="text" value={query.queue ?? ""} maxlength={64} autocomplete="off" />
        </div>
        <div class="actions">
          <button type="submit" class="secondary">
            Filter
          </button>
        </div>
      </form>
      {list.data.length === 0 ? (
        <p class="card">
          {query.queue ? "No dead letter on this queue." : "No dead letter: every message got through."}
        </p>
      ) : (
        <table class="rows">
          <caption>Dead letters ({list.total}), newest first</caption>
          <thead>
            <tr>
              <th scope="col">Failed</th>
              <th scope="col">Queue</th>
              <th scope="col">Attempts</th>
              <th scope="col">Message</th>
              <th scope="col">Replay</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((d) => (
              <tr>
                <th scope="row" data-label="Failed">
                  <When iso={d.createdAt} />
                </th>
                <td data-label="Queue">{d.queue}</td>
                <td data-label="Attempts">{d.attempts}</td>
                <td data-label="Message">
                  <details>
                    <summary>{d.messageId}</summary>
                    <pre>{JSON.stringify(d.body, null, 2)}</pre>
                  </details>
                </td>
                <td data-label="Replay">
                  <form method="post" action={`${DEAD_LETTERS}/${encodeURIComponent(d.id)}/replay`}>
                    <Csrf token={csrf} />
                    <button type="submit" class="secondary" aria-label={`Replay the ${d.queue} message ${d.messageId}`}>
                      Replay
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        base={DEAD_LETTERS}
        params={{ queue: query.queue }}
        endCursor={list.pageInfo.endCursor}
        hasNext={list.pageInfo.hasNextPage}
        isFirst={!query.cursor}
      />
    </>,
  );
}

/** REST: POST /admin/dead-letters/{id}/replay (an unknown id is the 404 page; 409 as a sentence). */
export async function replaySubmit(c: CC): Promise<Response> {
  return act(c, DEAD_LETTERS, async () => {
    const replayed = await callOperation<z.infer<typeof ReplayedDeadLetterSchema>>(c, replayDeadLetterOperation, {
      params: { id: c.req.param("deadLetterId") ?? "" },
    });
    return redirectTo(c, DEAD_LETTERS, {
      kind: "notice",
      text: replayed.deliveryId
        ? `The webhook delivery is sent again (delivery ${replayed.deliveryId}).`
        : `The message ${replayed.messageId} is back on the ${replayed.replayedTo} queue.`,
    });
  });
}
