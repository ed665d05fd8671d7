import { apiError } from "../errors.ts";
import { meant } from "../query/suggest.ts";

/** A refusal of unknown options names at most this many of them. */
const MAX_NAMED = 5;

/**
 * The options of one REST request: query parameters, or the keys of a POST body. Options a route
 * does not take are refused (docs/decisions.md: a 400 that names them and lists the valid ones).
 */
export class Options {
  private constructor(
    private readonly values: Map<string, unknown>,
    /** The options that came from the query string, as text (the others are a body's JSON values). */
    private readonly inQuery: Set<string>,
  ) {}

  static fromQuery(params: URLSearchParams): Options {
    const values = new Map<string, unknown>();
    for (const key of new Set(params.keys())) {
      const all = params.getAll(key);
      if (all.length > 1) throw apiError("BAD_USER_INPUT", `${key}: given ${all.length} times; give it once`);
      values.set(key, all[0]);
    }
    return new Options(values, new Set(values.keys()));
  }

  static fromBody(body: unknown): Options {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw apiError("BAD_USER_INPUT", "the request body must be a JSON object of options");
    }
    return new Options(new Map(Object.entries(body)), new Set());
  }

  /** Adds an option (query parameters of a POST request join its body's options). */
  add(key: string, value: string): void {
    this.values.set(key, value);
    this.inQuery.add(key);
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  keys(): string[] {
    return [...this.values.keys()];
  }

  raw(key: string): unknown {
    return this.values.get(key);
  }

  /**
   * An option whose value is JSON (`aq`): a body holds the value itself, a query string its JSON
   * text, URL-encoded, so that both reach the same parser. Blank text is absent.
   *
   * @example Options.fromQuery(new URLSearchParams("aq=%5B%5D")).json("aq") // → []
   */
  json(key: string): unknown {
    const v = this.raw(key);
    if (!this.inQuery.has(key)) return v;
    if (typeof v !== "string" || v.trim() === "") return undefined;
    try {
      return JSON.parse(v);
    } catch (e) {
      throw apiError(
        "BAD_USER_INPUT",
        `${key}: must be JSON (URL-encoded in a query string); ${(e as Error).message}`,
      );
    }
  }

  /** A string option; numbers and booleans of a JSON body are accepted as their text. */
  string(key: string): string | undefined {
    const v = this.raw(key);
    if (v === undefined || v === null) return undefined;
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    throw apiError("BAD_USER_INPUT", `${key}: must be a string`);
  }

  /** An integer option within [min, max]; blank means absent. */
  int(key: string, range: { min?: number; max?: number } = {}): number | undefined {
    const v = this.raw(key);
    if (v === undefined || v === null || v === "") return undefined;
    const n =
      typeof v === "number" ? v : typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n))
      throw apiError("BAD_USER_INPUT", `${key}: must be an integer; got ${JSON.stringify(v)}`);
    if (range.min !== undefined && n < range.min) {
      throw apiError("BAD_USER_INPUT", `${key}: must be at least ${range.min}; got ${n}`);
    }
    if (range.max !== undefined && n > range.max) {
      throw apiError("BAD_USER_INPUT", `${key}: must be at most ${range.max}; got ${n}`);
    }
    return n;
  }

  bool(key: string): boolean | undefined {
    const v = this.raw(key);
    if (v === undefined || v === null || v === "") return undefined;
    if (v === true || v === "true" || v === "1") return true;
    if (v === false || v === "false" || v === "0") return false;
    throw apiError("BAD_USER_INPUT", `${key}: must be true or false; got ${JSON.stringify(v)}`);
  }

  /**
   * Refuses every option the route does not take: names them (at most 5, and how many more), each
   * with the options it most likely meant (`suggest`: a route's is optionSuggester of
   * src/rest/filter-options.ts), and lists the valid ones.
   *
   * @example unknown filter "f:country" (did you mean "f:cc"?); valid options: fields, page, f:cc, …
   */
  refuseUnknown(valid: readonly string[], suggest: (name: string) => readonly string[] = () => []): void {
    const unknown = this.keys().filter((k) => !valid.includes(k));
    if (unknown.length === 0) return;
    const kind = unknown.every((u) => u.startsWith("f:")) ? "filter" : "option";
    const named = unknown.slice(0, MAX_NAMED).map((u) => `"${u}"${meant(suggest(u))}`);
    const more = unknown.length > MAX_NAMED ? ` and ${unknown.length - MAX_NAMED} more` : "";
    throw apiError(
      "BAD_USER_INPUT",
      `unknown ${kind}${unknown.length > 1 ? "s" : ""} ${named.join(", ")}${more}; ${
        valid.length ? `valid options: ${valid.join(", ")}` : "this path takes no options"
      }`,
    );
  }
}

/**
 * A comma-separated list; a backslash escapes a literal comma (or backslash) inside a value.
 *
 * @example splitList("Home\\, Garden,Toys") // → ["Home, Garden", "Toys"]
 */
export function splitList(value: string): string[] {
  const out: string[] = [];
  let current = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "\\" && (value[i + 1] === "," || value[i + 1] === "\\")) {
      current += value[++i];
    } else if (c === ",") {
      out.push(current);
      current = "";
    } else {
      current += c;
    }
  }
  out.push(current);
  return out.map((v) => v.trim());
}

/**
 * Values as one comma-separated option that splitList reads back: a comma or backslash inside a
 * value escaped with a backslash.
 *
 * @example joinList(["Home, Garden", "Toys"]) // → "Home\\, Garden,Toys"
 */
export function joinList(values: readonly string[]): string {
  return values.map((v) => v.replace(/[\\,]/g, "\\$&")).join(",");
}
