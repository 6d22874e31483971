/** The address prefix of an uploaded logo (logos.ts); a brand's logoUrl under it is served by us. */
export const LOGO_PATH = "/brand-logos/";

/**
 * A logo a page may show: an uploaded one, on our own origin. A remote URL is never shown (docs/white-label.md
 * "Logos"): a page makes no request to another origin, and a hot-linked image tells that site who opened it.
 */
export const ownLogoUrl = (url: string | null | undefined): string | null =>
  url && /^\/brand-logos\/[a-z0-9]{1,64}\.(png|jpg|webp)$/.test(url) ? url : null;
