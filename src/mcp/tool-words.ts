import { TOOLS } from "./catalogue.ts";
import { formLabel, formsOf, operationOf, type ToolSpec } from "./tool-spec.ts";

/**
 * A REST request a message names (`GET /list shows this key's account's lists`), as the tool an
 * agent calls for it (`the tool lists shows …`); one no tool stands for is left as it is.
 */
// A path ends where its text does, or at a sentence's end ("GET /list." names /list).
const REST_REQUEST = /\b(GET|POST|PUT|DELETE) (\/(?:[^\s),;:'"?]*[^\s),;:'"?.])?)/g;
const pathKey = (method: string, path: string) => `${method} ${path.replace(/[<{][^>}]*[>}]/g, "{}")}`;
let toolsByRequest: Map<string, string> | undefined;
export function inToolWords(message: string): string {
  toolsByRequest ??= new Map(
    TOOLS.flatMap((t) =>
      // export_segment stands for GET /domain with cursor=all: a page of it is search_domains'.
      t.name === "export_segment"
        ? []
        : formsOf(t).flatMap(([key, form]) => {
            const op = operationOf(form);
            return op ? [[pathKey(op.method, op.path), `${t.name}${asking(t, key)}`] as const] : [];
          }),
    ),
  );
  return message.replace(REST_REQUEST, (request, method: string, path: string) => {
    const tool = toolsByRequest?.get(pathKey(method, path));
    return tool ? `the tool ${tool}` : request;
  });
}

/** " with app", " with action delete": what asks a form of a tool; nothing for the form asked by default. */
function asking(spec: ToolSpec, key: string): string {
  if (!spec.forms || key === spec.choice?.default) return "";
  const label = formLabel(spec, key);
  return label.startsWith("without ") ? "" : spec.choice ? ` with ${label}` : ` ${label}`;
}
