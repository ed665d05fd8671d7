// Preloaded with `node --import` (test/server/startup.test.ts): records every package under
// node_modules the process loads, through ESM imports (a resolve hook, on the hooks' own thread)
// and CommonJS requires (Module._load, here), and writes their names, sorted, one a line, to
// LOADED_PACKAGES_FILE when the process exits.
import { writeFileSync } from "node:fs";
import Module, { register } from "node:module";
import { MessageChannel } from "node:worker_threads";

const seen = new Set();
const note = (path) => {
  const m = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (m) seen.add(m[1]);
};

const { port1, port2 } = new MessageChannel();
port1.on("message", note);
port1.unref();
const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, {
  data: { port: port2 },
  transferList: [port2],
});

const load = Module._load;
Module._load = function (request, parent, isMain, ...rest) {
  const loaded = load.call(this, request, parent, isMain, ...rest);
  try {
    note(Module._resolveFilename(request, parent, isMain));
  } catch {}
  return loaded;
};

process.on("exit", () => {
  if (process.env.LOADED_PACKAGES_FILE)
    writeFileSync(process.env.LOADED_PACKAGES_FILE, [...seen].sort().join("\n"));
});
