import { z } from "@hono/zod-openapi";
import { isTimeZone } from "./zoned-time";

const isLocale = (tag: string) => {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
};

export const TimeZone = z
  .string()
  .max(64)
  .refine(isTimeZone, { message: "Must be an IANA time zone, e.g. America/New_York" })
  .openapi({ example: "America/New_York" });

export const Locale = z
  .string()
  .max(35)
  .refine(isLocale, { message: "Must be a BCP 47 language tag, e.g. en-US" })
  .openapi({ example: "en-US" });

export const Slug = z
  .string()
  .min(2)
  .max(63)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "Lower-case letters, digits and single hyphens")
  .openapi({ example: "acme-dental" });

export const CountryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "ISO 3166-1 alpha-2 country code")
  .transform((s) => s.toUpperCase())
  .openapi({ example: "US" });

/** Trimmed and lower-cased before it is checked, so " Ann@X.com " is a valid email. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(z.regexes.email, "Invalid email address")
  .openapi({ format: "email", example: "ann@example.com" });
export const HttpUrl = z.url({ protocol: /^https?$/ }).max(2048);

/** Passwords: min 8 characters; over 1,024 bytes is refused before any hashing. */
export const Password = z
  .string()
  .min(8)
  .refine((s) => new TextEncoder().encode(s).length <= 1024, { message: "Must be at most 1024 bytes" });

export const slugify = (name: string) =>
  name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63) || "brand";
