/** @jsxImportSource hono/jsx */
import type { reviews } from "../../db/schema";
import { emailDocument, excerpt, Stars, starsLabel } from "./email-frame";

type Review = typeof reviews.$inferSelect;

/**
 * The new-review alert: subject, text and accessible HTML. `itemUrl` opens the review's inbox item in the console
 * (sign-in first if needed), where it is answered; the review site's own page is linked too.
 */
export function alertEmail(review: Review, locationName: string, unsubscribeUrl: string, itemUrl: string) {
  const stars = starsLabel(review.rating);
  const subject = `New review for ${locationName}: ${stars} on ${review.siteType}`;
  const quote = excerpt(review.text, 1000);
  const author = review.authorName ?? "A reviewer";
  const text = [
    `${author} left a review for ${locationName} on ${review.siteType}: ${stars}.`,
    quote ? `\n"${quote}"` : "\n(no text)",
    `\n\nAnswer it in the console: ${itemUrl}`,
    review.externalUrl ? `\nOn the site: ${review.externalUrl}` : "",
    `\nStop these emails: ${unsubscribeUrl}`,
  ].join("");
  const html = emailDocument({
    title: subject,
    preheader: `${stars}: ${quote.slice(0, 90)}`,
    unsubscribeUrl,
    unsubscribeLabel: "Stop new-review alert emails",
    children: (
      <>
        <h1 style="font-size:22px;margin:0 0 16px">New review for {locationName}</h1>
        <p style="margin:0 0 8px">
          <strong>{author}</strong> on {review.siteType}: <Stars rating={review.rating} />
        </p>
        {quote ? (
          <blockquote style="margin:16px 0;padding:8px 16px;border-left:4px solid #2453d6;background:#f4f5f7">
            {quote}
          </blockquote>
        ) : (
          <p style="color:#4a5568">(no text)</p>
        )}
        <p>
          <a href={itemUrl} style="color:#1d3fa8;font-weight:bold">
            Answer it in the console
          </a>
        </p>
        {review.externalUrl && (
          <p>
            <a href={review.externalUrl} style="color:#1d3fa8">
              Read it on {review.siteType}
            </a>
          </p>
        )}
      </>
    ),
  });
  return { subject, text, html };
}
