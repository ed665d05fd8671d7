/**
 * Instants as clients write them in filters and scalars: an RFC 3339 timestamp, or a calendar day.
 * A calendar day is remembered as one, so that as a maximum it covers the whole day.
 */
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
/** Dates that a client gave as a calendar day (YYYY-MM-DD) rather than an instant. */
const calendarDays = new WeakSet<Date>();

/** True when the client wrote this bound as a plain date: as a maximum it covers that whole day. */
export function isCalendarDay(d: Date): boolean {
  return calendarDays.has(d);
}

/** Year 0 and before: valid RFC 3339 text, but no database column holds them (PostgreSQL refuses). */
const FIRST_YEAR = 1;

/** A DateTime or Date input: an RFC 3339 instant, or a calendar day (midnight UTC, remembered as one). */
export function parseInstant(value: unknown, scalar: string): Date {
  const d = parseInstantText(value, scalar);
  if (d.getUTCFullYear() < FIRST_YEAR) {
    throw new TypeError(
      `${scalar} must be in the year ${FIRST_YEAR} or later (UTC); got ${JSON.stringify(value)}`,
    );
  }
  return d;
}

function parseInstantText(value: unknown, scalar: string): Date {
  if (typeof value === "string") {
    if (DATE_ONLY.test(value)) {
      const d = new Date(`${value}T00:00:00Z`);
      if (!Number.isNaN(d.getTime()) && d.toISOString().startsWith(value)) {
        calendarDays.add(d);
        return d;
      }
    } else if (RFC3339.test(value)) {
      const d = new Date(value);
      if (!Number.isNaN(d.getTime())) return d;
    }
  }
  // A TypeError (not a GraphQLError) lets graphql-js add where the value was: argument, variable path.
  throw new TypeError(
    `${scalar} must be an RFC 3339 timestamp such as 2024-03-01T12:30:00Z, or a date such as 2024-03-01; got ${JSON.stringify(value)}`,
  );
}

const DAY_MS = 86_400_000;
/** The first instant toISOString writes with a six-digit year (+010000-01-01). */
const YEAR_10000 = 253_402_300_800_000;
/** `YYYY-MM-DDT` by day since the epoch: a snapshot's times fall on a few thousand days. */
const dayTexts = new Map<number, string>();
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** `YYYY-MM-DDT` of a day since the epoch, kept. */
function dayPrefix(day: number): string {
  let date = dayTexts.get(day);
  if (date === undefined) {
    date = new Date(day * DAY_MS).toISOString().slice(0, 11);
    if (dayTexts.size >= 100_000) dayTexts.clear();
    dayTexts.set(day, date);
  }
  return date;
}

/**
 * `d.toISOString()` with `.000` left out when the milliseconds are 0 (the DateTime scalar's text),
 * written from the day's text, kept, and the time of day: about a third of toISOString's cost,
 * and a Domain with its Apps and technologies writes 15–20 of them. Outside the years 1970–9999,
 * or for an invalid date, it is toISOString's own (which throws for an invalid one).
 */
export function instantText(d: Date): string {
  const t = d.getTime();
  if (!(t >= 0 && t < YEAR_10000)) return d.toISOString().replace(".000Z", "Z");
  let rest = t % DAY_MS;
  const date = dayPrefix((t - rest) / DAY_MS);
  const ms = rest % 1000;
  rest = (rest - ms) / 1000;
  const s = rest % 60;
  rest = (rest - s) / 60;
  const m = rest % 60;
  const h = (rest - m) / 60;
  const fraction = ms === 0 ? "" : ms < 10 ? `.00${ms}` : ms < 100 ? `.0${ms}` : `.${ms}`;
  return `${date}${two(h)}:${two(m)}:${two(s)}${fraction}Z`;
}

/** `d.toISOString().slice(0, 10)`: the Date scalar's text, by the same kept day texts. */
export function dayText(d: Date): string {
  const t = d.getTime();
  if (!(t >= 0 && t < YEAR_10000)) return d.toISOString().slice(0, 10);
  return dayPrefix((t - (t % DAY_MS)) / DAY_MS).slice(0, 10);
}
