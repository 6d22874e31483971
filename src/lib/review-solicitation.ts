/**
 * Yelp's content guidelines forbid asking customers for reviews, and Yelp penalises businesses that
 * do (https://www.yelp.com/guidelines, "Don't ask for reviews"; https://www.yelp-support.com/article/Don-t-Ask-for-Reviews).
 * So a review request or review link never sends anyone to Yelp: campaigns cannot name it as their
 * destination, review links cannot weight it, a solicitation's destinationUrl cannot point at it,
 * and an old link minted for it opens the hosted feedback page instead. Replying to Yelp reviews is
 * unaffected.
 */
export const YELP_SOLICITING_FORBIDDEN =
  "Yelp forbids asking customers for reviews (Yelp content guidelines) and penalises businesses that do: review requests and review links cannot send people to Yelp";

/** yelp.com and Yelp's country sites (yelp.co.uk, yelp.ca, yelp.com.au, ...), with any subdomain. */
export function isYelpUrl(raw: string): boolean {
  try {
    return /(^|\.)yelp\.(com|[a-z]{2}|co\.[a-z]{2}|com\.[a-z]{2})$/i.test(new URL(raw).hostname);
  } catch {
    return false;
  }
}
