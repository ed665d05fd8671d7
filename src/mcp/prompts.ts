import { z } from "zod";

/**
 * The MCP prompts (docs/mcp.md): the workflows users start, each a message that tells the model
 * the question, the tool calls that answer it (with their arguments, as JSON a client can run
 * as written: test/mcp/agent.test.ts runs each against the demo), and how to write the answer.
 * A prompt reads nothing itself but the served snapshot's version, which dates "the last load".
 */
export interface PromptSpec {
  name: string;
  title: string;
  description: string;
  /** Its arguments: text, as MCP prompt arguments are. */
  args: Record<string, { description: string; optional?: true }>;
  /** The message: what to do, with `calls` (the tools to call first), for the last load `since`. */
  message(args: Record<string, string>, since: number): { task: string; calls: ToolCall[]; write: string };
}

export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
}

export const PROMPTS: readonly PromptSpec[] = [
  {
    name: "segment_weekly_report",
    title: "Weekly report of a segment",
    description:
      "What entered and left one of the account's segments at the last load, and how it is spread now.",
    args: { segment: { description: "The segment's name (the tool segments lists them)." } },
    message: ({ segment }, since) => ({
      task: `Write the weekly report of my segment "${segment}": how many Domains it has and how that changed at the last load, which Domains entered it and which left (and what moved each: the change that made it match or not), and how it is spread by platform, plan, country and category.`,
      calls: [
        { tool: "segments", arguments: { segment } },
        {
          tool: "changes",
          arguments: { segment, kinds: "segment_entered,segment_left", since: String(since), page_size: 100 },
        },
        {
          tool: "facets",
          arguments: { "f.segment": segment, facets: "p,plan,cc,cat", facet_size: 5 },
        },
      ],
      write:
        "Lead with the size and its change, then the entries and exits (name each Domain, at most 20 of each, and say how many more), then the spread as short tables. Page changes by next_cursor when has_next_page is true.",
    }),
  },
  {
    name: "list_lookalikes",
    title: "Lookalikes of a list",
    description:
      "Stores like those of one of the account's lists: what they share, and others that share it.",
    args: {
      list: { description: "The list's name (the tool lists shows them)." },
      country: {
        description: "Only stores of this country code (lookup finds it).",
        optional: true,
      },
    },
    message: ({ list, country }) => ({
      task: `Find stores like those in my list "${list}"${country ? ` in ${country}` : ""}, not already in the list: what its Domains have in common (platform, plan, country, category, technologies, Apps), and the stores most like them, scored by the rare Apps, technologies and categories they share.`,
      calls: [
        { tool: "search_domains", arguments: { "f.list": list, fields: "name", page_size: 100 } },
        {
          tool: "facets",
          arguments: { "f.list": list, facets: "p,plan,cc,cat,tech,an", facet_size: 5 },
        },
      ],
      write: `Then call similar_domains with domains: the names search_domains answered (up to 1,000: page by next_cursor while has_next_page), bq: ${JSON.stringify({ must_not: { disjuncts: [{ field: "list", term: list }] } })} (not already in the list)${country ? `, f.cc: ${JSON.stringify(country)}` : ""}, page_size 20. Answer what the list shares (from the facets) in two lines, then a table of the 20: name, platform, plan, country, score, and the two traits of why that weigh most.`,
    }),
  },
  {
    name: "technology_changes",
    title: "What changed for a technology",
    description:
      "Which stores added or removed a technology at the last load, and its trend over the loads kept.",
    args: { technology: { description: "The technology, as people write it (Google Analytics, Klaviyo)." } },
    message: ({ technology }, since) => ({
      task: `What changed for the technology "${technology}" at the last load: which stores added it and which removed it, and how many stores have had it at each load.`,
      calls: [
        { tool: "lookup", arguments: { text: technology, kinds: ["technologies"], limit: 3 } },
        {
          tool: "changes",
          arguments: {
            technology,
            kinds: "technology_added,technology_removed",
            since: String(since),
            page_size: 100,
          },
        },
        { tool: "trends", arguments: { dimension: "tech", values: technology } },
      ],
      write:
        "If lookup's best[0].value differs from the name given, call changes and trends again with that value. Answer the counts added and removed, the stores by name (at most 20 each, biggest rank first), and the trend as a short table.",
    }),
  },
];

/** A prompt's arguments as the SDK registers them (each a string; optional ones may be left out). */
export function argsSchemaOf(spec: PromptSpec): Record<string, z.ZodType<string | undefined>> {
  return Object.fromEntries(
    Object.entries(spec.args).map(([name, a]) => {
      const s = z.string().min(1).describe(a.description);
      return [name, a.optional ? s.optional() : s];
    }),
  );
}

/** The prompt's one message, as text: the task, the calls as JSON, how to write the answer. */
export function promptText(spec: PromptSpec, args: Record<string, string>, since: number): string {
  const { task, calls, write } = spec.message(args, since);
  return [
    task,
    "",
    "First make these tool calls (each a JSON object: tool and arguments):",
    "```json",
    ...calls.map((c) => JSON.stringify(c)),
    "```",
    "",
    write,
  ].join("\n");
}
