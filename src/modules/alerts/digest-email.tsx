/** @jsxImportSource hono/jsx */
import type { DigestData, DigestReview } from "./digest-data";
import { emailDocument, excerpt, Stars, starsLabel } from "./email-frame";

const H2 = "font-size:18px;margin:28px 0 8px";
const TABLE = "width:100%;border-collapse:collapse;font-size:15px";
const TH = "text-align:left;padding:6px 8px;border-bottom:2px solid #1d2433";
const TD = "padding:6px 8px;border-bottom:1px solid #d0d5dd;vertical-align:top";

const localStamp = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat("en-US", {
    timeZone,
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  }).format(new Date(iso));
const localDay = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "long",
    month: "long",
    day: "numeric",
    year: "numeric",
  }).format(new Date(iso));

function trendSentence(d: DigestData): string {
  const { averageRating } = d.newReviews;
  const { previousAverageRating, change } = d.trend;
  if (averageRating === null) return "No rated reviews this period.";
  if (previousAverageRating === null || change === null)
    return `Average rating ${averageRating.toFixed(2)} (no rated reviews the period before).`;
  const direction =
    change > 0 ? `up ${change.toFixed(2)}` : change < 0 ? `down ${Math.abs(change).toFixed(2)}` : "unchanged";
  return `Average rating ${averageRating.toFixed(2)}, ${direction} from ${previousAverageRating.toFixed(2)} the period before.`;
}

function ReviewTable({ caption, rows, timeZone }: { caption: string; rows: DigestReview[]; timeZone: string }) {
  return (
    <table style={TABLE}>
      <caption style="text-align:left;font-weight:600;padding:4px 0">{caption}</caption>
      <thead>
        <tr>
          <th scope="col" style={TH}>
            Rating
          </th>
          <th scope="col" style={TH}>
            Review
          </th>
          <th scope="col" style={TH}>
            Where
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr>
            <td style={TD}>
              <Stars rating={r.rating} />
            </td>
            <td style={TD}>
              {excerpt(r.text, 200) || "(no text)"}
              <br />
              <span style="color:#4a5568">
                {r.authorName ?? "Anonymous"}, {localStamp(r.createdAt, timeZone)}
              </span>
            </td>
            <td style={TD}>
              {r.locationName}, {r.siteType}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The digest as accessible HTML and as plain text, times shown in the subscription's zone. */
export function renderDigest(
  d: DigestData,
  o: { frequency: "daily" | "weekly"; timeZone: string; unsubscribeUrl: string },
) {
  const scope = d.locationName ?? "all locations";
  const title = `${o.frequency === "daily" ? "Daily" : "Weekly"} review digest: ${scope}`;
  const span = `${localStamp(d.period.start, o.timeZone)} to ${localStamp(d.period.end, o.timeZone)}`;
  const subject = `${title}, ${localDay(d.period.end, o.timeZone)}`;
  const n = d.newReviews;
  const due = d.responsesDue;
  const sla = d.slaBreaches;
  const summary = [
    `${n.count} new review${n.count === 1 ? "" : "s"}`,
    `${due.unanswered} awaiting a response`,
    `${due.awaitingApproval} awaiting approval`,
    `${sla.count} SLA breach${sla.count === 1 ? "" : "es"}`,
  ];
  const html = emailDocument({
    title: subject,
    preheader: summary.join(", "),
    unsubscribeUrl: o.unsubscribeUrl,
    unsubscribeLabel: `Stop ${o.frequency} digest emails`,
    children: (
      <>
        <h1 style="font-size:22px;margin:0 0 4px">{title}</h1>
        <p style="margin:0 0 16px;color:#4a5568">{span}</p>
        <ul style="padding-left:20px;margin:0 0 8px">
          {summary.map((s) => (
            <li>{s}</li>
          ))}
        </ul>
        <h2 style={H2}>New reviews</h2>
        <p>{trendSentence(d)}</p>
        {n.listed.length ? (
          <ReviewTable
            caption={n.count > n.listed.length ? `The ${n.listed.length} newest of ${n.count}` : "New reviews"}
            rows={n.listed}
            timeZone={o.timeZone}
          />
        ) : (
          <p>No new reviews.</p>
        )}
        <h2 style={H2}>Responses due</h2>
        <p>
          {due.unanswered} review{due.unanswered === 1 ? "" : "s"} without a published response; {due.awaitingApproval}{" "}
          repl{due.awaitingApproval === 1 ? "y" : "ies"} waiting for approval.
        </p>
        {due.oldest.length > 0 && <ReviewTable caption="Waiting longest" rows={due.oldest} timeZone={o.timeZone} />}
        <h2 style={H2}>SLA breaches</h2>
        {sla.count ? (
          <ul style="padding-left:20px">
            {sla.listed.map((b) => (
              <li>
                {b.locationName}: {b.reason ?? "overdue"} ({localStamp(b.escalatedAt, o.timeZone)})
              </li>
            ))}
          </ul>
        ) : (
          <p>None this period.</p>
        )}
      </>
    ),
  });
  const line = (r: DigestReview) =>
    `- ${starsLabel(r.rating)}, ${r.locationName} (${r.siteType}), ${r.authorName ?? "Anonymous"}: ${excerpt(r.text, 200) || "(no text)"}`;
  const text = [
    title,
    span,
    "",
    ...summary.map((s) => `* ${s}`),
    "",
    "NEW REVIEWS",
    trendSentence(d),
    ...n.listed.map(line),
    "",
    "RESPONSES DUE",
    `${due.unanswered} without a published response; ${due.awaitingApproval} waiting for approval.`,
    ...due.oldest.map(line),
    "",
    "SLA BREACHES",
    ...(sla.count
      ? sla.listed.map(
          (b) => `- ${b.locationName}: ${b.reason ?? "overdue"} (${localStamp(b.escalatedAt, o.timeZone)})`,
        )
      : ["None this period."]),
    "",
    `Stop ${o.frequency} digest emails: ${o.unsubscribeUrl}`,
  ].join("\n");
  return { subject, html, text };
}
