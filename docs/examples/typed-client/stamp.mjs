// Records which API documents the committed types were generated from (their sha-256), so that the
// repository's own tests (test/docs/typed-client.test.ts) notice, without installing anything, when
// docs/openapi.json or schema.graphql changed and `npm run generate` was not run again.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";

const sources = ["../../openapi.json", "../../../schema.graphql"];
// Of the text with LF line ends, so that a checkout with CRLF ends (git's autocrlf) agrees.
const sha256 = (path) =>
  createHash("sha256").update(readFileSync(path, "utf8").replaceAll("\r\n", "\n")).digest("hex");
const stamp = Object.fromEntries(sources.map((path) => [path, sha256(path)]));
writeFileSync("src/generated/sources.json", `${JSON.stringify(stamp, null, 2)}\n`);
