import type { GraphQLObjectType } from "graphql";
import { type Endpoint, POLL_INTERVAL_SECONDS, RATE_LIMITS } from "../auth/limits.ts";
import { schema } from "../schema/index.ts";
import { cacheable } from "./etag.ts";
import { FACETS_RESPONSE } from "./facets.ts";
import { FIELDS_OPTION, type OptionDoc } from "./inputs.ts";
import { FILE_CONTENT, FILE_HEADERS, FILE_RESPONSES } from "./openapi-files.ts";
import { type Json, typeSchema } from "./openapi-schema.ts";
import type { Operation, Part, Route } from "./route.ts";
import { OPERATIONS, REST_BASE, ROUTES } from "./routes.ts";
import { USAGE_PATH } from "./usage.ts";

/**
 * The OpenAPI 3.1 document of the REST API, generated from the route table and from the legacy
 * names the GraphQL schema declares, so it is never written twice. Served at
 * /json/api/v1/openapi.json and committed as docs/openapi.json (a test keeps it current).
 */
const ERROR_RESPONSES: Json = {
  "400": { description: "Invalid or unknown option; the message names it and says what is allowed." },
  "401": { description: "Missing or invalid API key." },
  "404": { description: "Unknown App, Domain or path." },
  "405": { description: "Wrong method (the Allow header lists the right ones)." },
  "410": { description: "Expired cursor: the data was refreshed since it was issued." },
  "413": { description: "Body too large: over 1,000,000 bytes as sent, or once decoded." },
  "415": {
    description: "The body's Content-Encoding is not one the server reads (gzip, deflate, br or identity).",
  },
  "429": {
    description:
      "Rate limited (per key, plan and endpoint; see the description); Retry-After says how many seconds to wait.",
  },
  "500": { description: "Unexpected error, logged with the request id the body carries." },
  "503": {
    description:
      "The database did not answer in time (DATABASE_UNAVAILABLE), or the gateway is at a limit of its own, which the message names (BUSY: its exports at once, or its connections to the database all in use); Retry-After says when to try again. Logged with the request id the body carries.",
  },
};

/** What a whole answer's `dry_run=true` answers (src/export/estimate.ts). */
const DRY_RUN_ANSWER =
  "With dry_run=true, JSON: {dry_run: {domains, format, fields, bytes, gzip_bytes, sample, exact, would_draw: {endpoint, title, limit, remaining, reset, month, counted_as, this_month}, job: {status, progress, total} (a cursor=all job of the same question already there, which the request would answer instead, drawing nothing) or null}}, nothing started.";

const RATE_HEADERS: Json = {
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
  RateLimit: { $ref: "#/components/headers/RateLimit" },
};

const CACHE_HEADERS: Json = {
  ETag: { $ref: "#/components/headers/ETag" },
  "Cache-Control": { $ref: "#/components/headers/Cache-Control" },
};

const HEADERS: Json = {
  "X-Request-Id": {
    description:
      "The request's id, on every response: the X-Request-Id the request came with (a plain token of up to 128 characters), or a new UUID. Error bodies carry it as request_id, and the server's log lines about the request carry it too.",
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": {
    description: "Requests this key's plan may make to this endpoint per window.",
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in the current window.",
    schema: { type: "integer" },
  },
  "X-RateLimit-Reset": { description: "Seconds until the window resets.", schema: { type: "integer" } },
  "RateLimit-Policy": {
    description:
      'The IETF field (draft-ietf-httpapi-ratelimit-headers) of the budget drawn on: "<endpoint>";q=<requests per window on the plan>;w=<window in seconds>, e.g. "listDomains";q=2;w=1.',
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      'The IETF field (draft-ietf-httpapi-ratelimit-headers) of the budget drawn on: "<endpoint>";r=<requests left>;t=<seconds until the window resets>, e.g. "listDomains";r=1;t=1.',
    schema: { type: "string" },
  },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } },
  "Content-Disposition": {
    description: 'A whole result in CSV (for=csv): attachment; filename="domains.csv".',
    schema: { type: "string" },
  },
  ETag: {
    description:
      'W/"<snapshot version>-<digest of the route, path and options>": the same for the same URL (options in any order) until a new snapshot is served. Send it back in If-None-Match. Not on cursor=all results.',
    schema: { type: "string" },
  },
  "Cache-Control": {
    description:
      "private, no-cache: a private cache may keep the response but must revalidate it (If-None-Match) before each use, since a new snapshot can be served at any time.",
    schema: { type: "string" },
  },
};

/** The CSV of Export Domains and cursor=all (src/export/csv.ts; docs/api.md 4.7, "CSV"). */
const CSV: Json = {
  schema: {
    type: "string",
    description:
      "RFC 4180 (CRLF record ends; a field with a comma, quote, CR or LF quoted, its quotes doubled), UTF-8. A header record first, then one record per Domain. A column per selected field, in the order of fields; a nested field's column is its dotted path (theme.name), in its selection's order. A list of values is joined with ;. A list of objects (apps, technologies, contact_info) is a column per sub-field (apps.name), its objects' values joined with ; in list order, empty for an object without it, so entries line up across columns; a list inside one such object is joined with |. A map (alternates) is key=value entries joined with ;. An unknown value is an empty field.",
  },
};

const PARAMETERS: Json = {
  "If-None-Match": {
    name: "If-None-Match",
    in: "header",
    description:
      "ETags of responses already held (comma-separated), or *. When one matches the current ETag (weak comparison), the answer is 304 without a body and nothing is read; * gets 304 whenever the answer would be 200 (that is read). Either way the request draws on the rate limit.",
    schema: { type: "string" },
  },
};

/** An endpoint's limits of docs/api.md section 8, in words, with the name a 429 gives it. */
function limitOf(endpoint: Endpoint): string {
  const l = RATE_LIMITS[endpoint];
  const per = l.duration === 1 ? "second" : "minute";
  const plans = l.enterprise === l.pro ? "" : ` on the enterprise plan, ${l.pro} on pro and elite`;
  return `${l.enterprise} per ${per}${plans} (${l.title}, \`${endpoint}\`)`;
}

/** The route's limits: List Domains' routes also start cursor=all jobs, on a budget of their own. */
function limitsOf(route: Route): string {
  const own = `Rate limit: ${limitOf(route.endpoint)}.`;
  if (route.whole?.kind !== "job") return own;
  return `${own} With cursor=all, starting a job: ${limitOf(route.whole.endpoint)}, a budget of its own (not Export Domains'); polls draw on none but must be ${POLL_INTERVAL_SECONDS} s apart.`;
}

/** The JSON Schema of an envelope key's value. */
function partSchema(route: Route, part: Part, components: Json): Json {
  const record = () => typeSchema(schema.getType(route.type) as GraphQLObjectType, components);
  if ("records" in part) return { type: "array", items: record() };
  if ("record" in part) return record();
  return part.type === "string[]" ? { type: "array", items: { type: "string" } } : { type: part.type };
}

const LIVE =
  "Server-Sent Events: each matching change an event `change`, its `id` its feed cursor, its `data` the change as GET /changes writes it (`fields`); a comment every 15 s while it waits; open until the client closes it or max_seconds pass.";
const LAST_EVENT_ID =
  "The id of the last event received (an EventSource sends it when it reconnects): the stream goes on after it; cursor wins when both are given.";

function operationOf(op: Operation, components: Json): Json {
  const { route } = op;
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  const optionSchema = (o: OptionDoc): Json =>
    o.type === "array"
      ? { type: "array", items: o.items ?? { type: "object" } }
      : (o.schema ?? { type: o.type, ...(o.enum ? { enum: [...o.enum] } : {}) });
  // An array or object in a query string is its JSON text, URL-encoded: OpenAPI says so with `content`.
  const query = op.body
    ? []
    : op.options.map((o) => ({
        name: o.name,
        in: "query",
        description: o.description,
        ...(o.type === "array" || o.type === "object"
          ? { content: { "application/json": { schema: optionSchema(o) } } }
          : { schema: optionSchema(o) }),
      }));
  const body = op.body
    ? {
        requestBody: {
          description:
            "A JSON object of options, at most 1,000,000 bytes. It may be sent compressed, with Content-Encoding gzip, deflate or br (one coding; the limit holds for the decoded body too); any other Content-Encoding is answered 415.",
          content: {
            "application/json": {
              schema: {
                type: "object",
                additionalProperties: false,
                properties: Object.fromEntries(
                  op.options.map((o) => [o.name, { ...optionSchema(o), description: o.description }]),
                ),
              },
            },
          },
        },
      }
    : {};
  const envelope: Json = Object.fromEntries(
    Object.entries(route.envelope).map(([key, part]) => [key, partSchema(route, part, components)]),
  );
  const whole = route.whole?.kind;
  const domain = () => typeSchema(schema.getType(route.type) as GraphQLObjectType, components);
  const cached = cacheable(op);
  // GET /changes/stream: Server-Sent Events (src/export/changes-live.ts), resumed by Last-Event-ID.
  const live = op.id === "streamChanges";
  const dryRun = op.options.some((o) => o.name === "dry_run") ? ` ${DRY_RUN_ANSWER}` : "";
  return {
    operationId: op.id,
    summary: op.summary,
    description: limitsOf(route),
    tags: [
      route.path.startsWith("/snapshots")
        ? "Snapshots"
        : route.path.startsWith("/app")
          ? "Apps"
          : route.path.startsWith("/list")
            ? "Lists"
            : route.path.startsWith("/webhooks")
              ? "Webhooks"
              : "Domains",
    ],
    parameters: [
      ...params,
      ...query,
      ...(cached ? [{ $ref: "#/components/parameters/If-None-Match" }] : []),
      ...(live
        ? [{ name: "Last-Event-ID", in: "header", description: LAST_EVENT_ID, schema: { type: "string" } }]
        : []),
      ...(route.file ? FILE_HEADERS : []),
    ],
    ...body,
    responses: {
      "200": {
        description: route.file
          ? "The whole file: Parquet (application/vnd.apache.parquet), or the manifest (application/json). Its ETag is its SHA-256. Counts as one of the month's exports."
          : live
            ? LIVE
            : whole === "stream"
              ? `Every matching Domain: one per line (JSON Lines, for=jsonl, the default), or CSV (for=csv).${dryRun}`
              : whole === "job"
                ? `Success. With cursor=all, the whole result: {domains} (for=json, the default), JSON Lines (for=jsonl) or CSV (for=csv).${dryRun}`
                : "Success.",
        headers: {
          ...(cached ? { ...RATE_HEADERS, ...CACHE_HEADERS } : RATE_HEADERS),
          ...(whole ? { "Content-Disposition": { $ref: "#/components/headers/Content-Disposition" } } : {}),
        },
        content: route.file
          ? FILE_CONTENT
          : {
              ...(whole === "stream"
                ? {}
                : {
                    "application/json": {
                      schema: route.facets ? FACETS_RESPONSE : { type: "object", properties: envelope },
                    },
                  }),
              ...(live
                ? { "text/event-stream": { schema: { type: "string" } } }
                : whole
                  ? { "application/x-ndjson": { schema: domain() }, "text/csv": CSV }
                  : {}),
            },
      },
      ...(route.file ? FILE_RESPONSES : {}),
      ...(route.whole?.kind === "job"
        ? {
            "202": {
              description:
                "cursor=all: the result is being prepared; poll the same URL every 5 s (faster polls get 429).",
              headers: RATE_HEADERS,
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: { progress: { type: "integer" }, total: { type: "integer" } },
                  },
                },
              },
            },
          }
        : {}),
      ...(cached
        ? {
            "304": {
              description:
                "Not Modified: If-None-Match names the current ETag (the same snapshot is served), or is * and the answer would be 200. No body. The request drew on the rate limit; with a listed ETag it read nothing.",
              headers: { ...CACHE_HEADERS, ...RATE_HEADERS },
            },
          }
        : {}),
      ...Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, r]) => [
          status,
          {
            ...(r as Json),
            headers:
              status === "429"
                ? { ...RATE_HEADERS, "Retry-After": { $ref: "#/components/headers/Retry-After" } }
                : status === "401"
                  ? { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } }
                  : RATE_HEADERS,
            content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
          },
        ]),
      ),
    },
  };
}

/** GET /json/api/v1/usage (src/rest/usage.ts), beside the legacy paths: its own server URL. */
function usageOf(components: Json): Json {
  const errors = ["400", "401", "405", "500", "503"];
  return {
    servers: [{ url: USAGE_PATH.slice(0, -"/usage".length) }],
    get: {
      operationId: "usage",
      summary: "The calling API key's plan, rate-limit budgets and month's exports",
      description:
        "Every budget of the key as it stands (limit, remaining, when it resets), read without drawing on it: this request draws on no budget and carries no X-RateLimit headers. exports and cursor_all_jobs count those started in the calendar month (UTC), on every gateway.",
      tags: ["Account"],
      parameters: [
        { name: "fields", in: "query", description: FIELDS_OPTION.description, schema: { type: "string" } },
      ],
      responses: {
        "200": {
          description: "Success.",
          headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } },
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["usage"],
                properties: { usage: typeSchema(schema.getType("Usage") as GraphQLObjectType, components) },
              },
            },
          },
        },
        ...Object.fromEntries(
          errors.map((status) => [
            status,
            {
              ...(ERROR_RESPONSES[status] as Json),
              headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } },
              content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
            },
          ]),
        ),
      },
    },
  };
}

export function buildOpenApi(): Json {
  const components: Json = {
    Error: {
      type: "object",
      required: ["error", "code", "request_id"],
      properties: {
        error: { type: "string", description: "What was wrong, naming the option." },
        code: { type: "string", description: "BAD_USER_INPUT, NOT_FOUND, CURSOR_EXPIRED, ..." },
        request_id: {
          type: "string",
          description:
            "The request's id, as its X-Request-Id header: quote it when asking about the error (a 500's or 503's cause is logged under it).",
        },
        retry_after: { type: "integer", description: "For 429s and 503s: seconds to wait, as Retry-After." },
        endpoint: {
          type: "string",
          enum: [...new Set(ROUTES.flatMap((r) => [r.endpoint, ...(r.whole ? [r.whole.endpoint] : [])]))],
          description:
            "For 429s: the endpoint whose budget is spent (the message names it too): exportDomains for Export Domains, listDomainsAll for starting or polling a cursor=all job, else the route's own.",
        },
      },
    },
  };
  const paths: Json = {};
  for (const op of OPERATIONS) {
    paths[op.route.path] = {
      ...(paths[op.route.path] as Json),
      [op.method.toLowerCase()]: operationOf(op, components),
    };
  }
  paths["/usage"] = usageOf(components);
  return {
    openapi: "3.1.0",
    info: {
      title: "storegraph legacy REST API",
      version: "v1",
      description:
        "The legacy REST API of online stores (Domains), their Apps and App reviews, translated onto the GraphQL API. Every request carries Authorization: Bearer <API key>.",
    },
    servers: [{ url: REST_BASE }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components,
      headers: HEADERS,
      parameters: PARAMETERS,
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
  };
}
