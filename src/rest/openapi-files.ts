/** The OpenAPI document's parts for a snapshot's file (GET /snapshots/{version}/{file}: src/files/routes.ts). */

/** A snapshot file's request headers (src/files/routes.ts): one byte range, conditionally. */
export const FILE_HEADERS = [
  {
    name: "Range",
    in: "header",
    description: "One byte range: bytes=start-end, bytes=start- or bytes=-length (answered 206).",
    schema: { type: "string" },
  },
  {
    name: "If-Range",
    in: "header",
    description: "The file's ETag: the range is sent only while the file is that one, else the whole file.",
    schema: { type: "string" },
  },
  {
    name: "If-None-Match",
    in: "header",
    description: "The file's ETag (its SHA-256, quoted): 304 without a body while it is that file.",
    schema: { type: "string" },
  },
];
export const FILE_CONTENT = {
  "application/vnd.apache.parquet": { schema: { type: "string", format: "binary" } },
  "application/json": { schema: { type: "object" } },
};
export const FILE_RESPONSES = {
  "206": {
    description:
      "The byte range asked for (Content-Range). A file read by ranges counts once in the month's exports, at its first range.",
    content: FILE_CONTENT,
  },
  "304": { description: "The file is the one If-None-Match names." },
  "416": {
    description: "The range starts past the file's end: Content-Range: bytes */<size>.",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  },
};
