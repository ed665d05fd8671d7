/** The generator's fixed "now": every generated date lies before it, so output never depends on the clock. */
export const NOW_MS = Date.UTC(2026, 10, 20);
export const DAY_MS = 86_400_000;

// Formatting dates is a hot path (a dozen per Domain): day strings are cached by day number and
// times of day assembled from a table, instead of Date#toISOString per call.
const dayStrings: string[] = [];
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, "0"));

function dayString(day: number): string {
  let s = dayStrings[day];
  if (s === undefined) {
    s = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (day >= 0 && day < 100_000) dayStrings[day] = s;
  }
  return s;
}

/** RFC 3339 timestamp at whole seconds, e.g. `2024-03-01T12:30:00Z`. */
export function toTimestamp(ms: number): string {
  return `${toLocalTime(ms)}Z`;
}

/** `YYYY-MM-DD`. */
export function toDate(ms: number): string {
  return dayString(Math.floor(ms / DAY_MS));
}

/** `YYYY-MM-DDTHH:MM:SS` without zone (App `created_at`). */
export function toLocalTime(ms: number): string {
  const sec = Math.floor(ms / 1000);
  const day = Math.floor(sec / 86_400);
  let rest = sec - day * 86_400;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  return `${dayString(day)}T${TWO_DIGITS[h]}:${TWO_DIGITS[m]}:${TWO_DIGITS[rest - m * 60]}`;
}

/** Start of the UTC day containing `ms`. */
export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}
