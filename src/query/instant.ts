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
