import { z } from "zod";
import { PLATFORMS } from "./platforms.ts";

/**
 * The forms of the values the snapshot files' records carry (docs/dataset.md): times, dates, URLs,
 * DNS names, codes, counts and sets, as zod schemas the records (src/dataset/record.ts) are made of.
 */

// Regexes rather than z.url()/z.iso: a million Domains carry ~20M such values, and these are the
// exact forms docs/dataset.md allows.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const URL_RE = /^https?:\/\/[^\s/?#]+\.[^\s/?#]+([/?#]\S*)?$/i;
const DNS_NAME = /^(?=.{3,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z0-9-]{2,63}$/;
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Parses any of the time forms above to epoch milliseconds (UTC for zone-less forms). A date is
 * 10 characters long and a local time 19, so their patterns are tried only at those lengths: a
 * timestamp (the most frequent form, about 20 a Domain) goes straight to Date.parse.
 */
export function toEpochMs(value: string): number {
  if (value.length === 10 && DATE.test(value)) return Date.parse(`${value}T00:00:00Z`);
  if (value.length === 19 && LOCAL_TIME.test(value)) return Date.parse(`${value}Z`);
  return Date.parse(value);
}

/**
 * A time of the form `re`, which Date.parse reads; a zone-less form must also name a calendar day
 * that exists (Date.parse accepts 2024-02-30): its time, printed again, is the same text. Each
 * value is parsed once (toEpochMs's dispatch is known from the form).
 */
const validTime = (re: RegExp, form: string, zoned: boolean) =>
  z.string().refine(
    (v) => {
      if (!re.test(v)) return false;
      if (zoned) return !Number.isNaN(Date.parse(v));
      const ms = toEpochMs(v);
      return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, v.length) === v;
    },
    { message: `must be ${form}` },
  );

export const timestamp = validTime(TIMESTAMP, "an RFC 3339 timestamp such as 2024-03-01T12:30:00Z", true);
export const localTime = validTime(LOCAL_TIME, "a local time YYYY-MM-DDTHH:MM:SS (no zone)", false);
export const date = validTime(DATE, "a date YYYY-MM-DD", false);
export const url = z.string().regex(URL_RE, "must be an absolute http(s) URL");
export const dnsName = z.string().regex(DNS_NAME, "must be a lower-case DNS name such as shop.example.com");
export const nonBlank = z.string().refine((v) => v.trim().length > 0, { message: "must not be blank" });
export const count = z.int().min(0, "must be an integer ≥ 0");
export const country = z
  .string()
  .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code in upper case, e.g. DE");
export const currency = z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code in upper case, e.g. EUR");
export const language = z.string().regex(/^([a-z]{2})?$/, 'must be an ISO 639-1 code in lower case, or ""');
export const platform = z.string().refine((v) => PLATFORMS.has(v), {
  message: "must be a platform of src/dataset/platforms.txt",
});
export const rating = z.number().min(0).max(5);
export const percentile = z.number().min(0).max(100);

/** A list without blanks or duplicates. */
export const stringSet = (item: z.ZodType<string> = nonBlank) =>
  z.array(item).refine((a) => new Set(a).size === a.length, { message: "must not repeat a value" });

export const enumOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: () => `must be one of ${values.join(", ")}` });
