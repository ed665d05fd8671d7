import { describe, expect, it } from "vitest";
import { TOOLS } from "../../src/mcp/catalogue.ts";
import { NO_TOOL } from "../../src/mcp/no-tool.ts";
import { operationsOf } from "../../src/mcp/tool-spec.ts";
import { inToolWords } from "../../src/mcp/tool-words.ts";
import { OPERATIONS } from "../../src/rest/routes.ts";

/**
 * Every question of the API has a tool (issue 75): each REST operation is a tool's, or is in
 * NO_TOOL with the reason an agent is not given it. An operation added to REST fails here until
 * it is one or the other.
 */
describe("the MCP catalogue", () => {
  it("gives every REST operation a tool, or a written reason for none", () => {
    const tooled = new Set(TOOLS.flatMap((t) => operationsOf(t).map((op) => op.id)));
    const neither = OPERATIONS.filter((o) => !tooled.has(o.id) && !NO_TOOL[o.id]).map((o) => o.id);
    expect(neither).toEqual([]);
    // A reason for an operation that has a tool, or that REST no longer has, is stale.
    const both = Object.keys(NO_TOOL).filter((id) => tooled.has(id));
    expect(both).toEqual([]);
    const unknown = Object.keys(NO_TOOL).filter((id) => !OPERATIONS.some((o) => o.id === id));
    expect(unknown).toEqual([]);
    for (const [id, reason] of Object.entries(NO_TOOL)) expect(reason.length, id).toBeGreaterThan(10);
  });

  it("names each tool once, and says what each does", () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const t of TOOLS) expect(t.summary.length, t.name).toBeGreaterThan(30);
  });

  it("words a REST request a message names as the tool an agent calls", () => {
    expect(inToolWords('no list named "x" (GET /list shows them)')).toBe(
      'no list named "x" (the tool lists shows them)',
    );
    expect(inToolWords("see GET /list.")).toBe("see the tool lists.");
    expect(inToolWords("only when retrieving a single App (GET /app/<platform>.<token>)")).toBe(
      "only when retrieving a single App (the tool search_apps with app)",
    );
    // No tool stands for it (webhooks), or the tool is not its page's (cursor=all): left as it is.
    expect(inToolWords("GET /webhooks shows them")).toBe("GET /webhooks shows them");
    expect(inToolWords("GET /domain?cursor=all")).toBe("GET /domain?cursor=all");
  });
});
