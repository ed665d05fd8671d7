/**
 * A strict RFC 4180 reader for the tests: records end with CRLF (the last one too, as we write
 * them), a field is quoted when it holds a comma, a quote, CR or LF, and a quote inside a quoted
 * field is doubled. Anything else (a bare quote inside an unquoted field, a lone CR or LF outside
 * quotes, text after a closing quote) throws, so that a writer that strays from the RFC fails.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  const fail = (why: string) => {
    throw new Error(`not RFC 4180 at offset ${i}: ${why}`);
  };
  while (i < text.length) {
    let value = "";
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) fail("a quoted field is not closed");
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== "," && text[i] !== "\r") {
        if (text[i] === '"' || text[i] === "\n")
          fail(`a bare ${JSON.stringify(text[i])} in an unquoted field`);
        value += text[i++];
      }
    }
    record.push(value);
    if (text[i] === ",") {
      i++;
      continue;
    }
    if (text[i] === "\r" && text[i + 1] === "\n") {
      i += 2;
      records.push(record);
      record = [];
      continue;
    }
    fail(i >= text.length ? "the last record does not end with CRLF" : "text after a field");
  }
  return records;
}

/** The records of a CSV text as objects keyed by its header row's names. */
export function csvObjects(text: string): { header: string[]; rows: Record<string, string>[] } {
  const [header, ...records] = parseCsv(text);
  for (const r of records) if (r.length !== header.length) throw new Error(`a record of ${r.length} fields`);
  return { header, rows: records.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]]))) };
}
