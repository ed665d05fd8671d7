import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The docs point into each other, and the code points into the docs: a section that moves must
 * take its links along. Two kinds of reference are held here:
 * - every relative Markdown link of README.md and docs/ (`[text](api.md#8-limits)`): the file
 *   exists, and its anchor is one of the headings GitHub makes anchors of;
 * - every named section (`docs/decisions.md, "Generated writers"`), in the docs and in the code's
 *   comments: the file has a heading (or a bold lead-in) that starts with that name.
 */

const root = join(import.meta.dirname, "..");

/** Files under `dir` whose name passes `keep`, without dependencies or generated code. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules" || e.name === "generated" || e.name.startsWith(".")) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return filesUnder(path, keep);
    return keep(e.name) ? [path] : [];
  });
}

const DOCS = ["README.md", ...filesUnder("docs", (n) => n.endsWith(".md"))];
const CODE = [
  ...filesUnder("src", (n) => /\.(ts|mjs)$/.test(n)),
  ...filesUnder("test", (n) => n.endsWith(".ts")),
];

const read = (path: string) => readFileSync(join(root, path), "utf8");

/** The lines of a Markdown file outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): [number, string][] {
  const out: [number, string][] = [];
  let fenced = false;
  text.split("\n").forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) out.push([i + 1, line]);
  });
  return out;
}

/** A heading's anchor as GitHub makes it (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** A Markdown file's headings (their text), in order. */
function headingsOf(path: string): string[] {
  return proseLines(read(path)).flatMap(([, line]) => {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    return m ? [m[1]] : [];
  });
}

/** The anchors of a Markdown file's headings, numbered as GitHub numbers repeats (-1, -2, ...). */
function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const h of headingsOf(path)) {
    const slug = slugOf(h);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

interface Link {
  at: string;
  target: string;
}

/** The relative link targets of a Markdown file's prose (inline code left out). */
function linksOf(path: string): Link[] {
  const links: Link[] = [];
  for (const [n, line] of proseLines(read(path))) {
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1].replace(/^<|>$/g, "");
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      links.push({ at: `${path}:${n}`, target });
    }
  }
  return links;
}

/** Why a link does not resolve, or null when it does. */
function brokenLink(from: string, target: string): string | null {
  const [file, anchor] = target.split("#", 2) as [string, string | undefined];
  const path = file === "" ? from : relative(root, join(root, dirname(from), decodeURI(file)));
  if (!existsSync(join(root, path))) return `${path} does not exist`;
  if (anchor === undefined || !path.endsWith(".md")) return null;
  return anchorsOf(path).has(anchor) ? null : `${path} has no heading with the anchor #${anchor}`;
}

/** Every `<file>.md, "Section"` (or `<file>.md "Section"`) a file names. */
function namedSections(path: string): Link[] {
  const out: Link[] = [];
  read(path)
    .split("\n")
    .forEach((line, i) => {
      for (const m of line.matchAll(/([\w./-]*\b[\w-]+\.md),? (?:section )?"([^"]+)"/g)) {
        out.push({ at: `${path}:${i + 1}`, target: `${m[1]}|${m[2]}` });
      }
    });
  return out;
}

/** The file a section reference names: as written from the repository's root, or beside the file, or in docs/. */
function fileNamed(from: string, name: string): string | null {
  const candidates = [name, join(dirname(from), name), join("docs", name)];
  return candidates.find((c) => existsSync(join(root, c))) ?? null;
}

/** Whether a file has a heading, or a bold lead-in (`- **Name.**`), that starts with `section`. */
function hasSection(path: string, section: string): boolean {
  const wanted = section.toLowerCase().replace(/[`*]/g, "");
  const plain = (s: string) => s.replace(/[`*]/g, "").trim().toLowerCase();
  if (headingsOf(path).some((h) => plain(h).startsWith(wanted))) return true;
  return proseLines(read(path)).some(([, line]) =>
    [...line.matchAll(/\*\*([^*]+)\*\*/g)].some((m) => plain(m[1]).startsWith(wanted)),
  );
}

describe("links between the docs", () => {
  it("finds the docs and their links", () => {
    expect(DOCS).toContain("README.md");
    expect(DOCS).toContain(join("docs", "api.md"));
    expect(DOCS.flatMap(linksOf).length).toBeGreaterThan(50);
  });

  it.each(DOCS)("every relative link and anchor of %s resolves", (path) => {
    const broken = linksOf(path).flatMap((l) => {
      const why = brokenLink(path, l.target);
      return why ? [`${l.at}: (${l.target}): ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it("every section named in the docs and in the code's comments exists", () => {
    const broken = [...DOCS, ...CODE].flatMap(namedSections).flatMap((ref) => {
      const [name, section] = ref.target.split("|") as [string, string];
      const path = fileNamed(ref.at.slice(0, ref.at.lastIndexOf(":")), name);
      if (!path) return [`${ref.at}: ${name} does not exist`];
      return hasSection(path, section) ? [] : [`${ref.at}: ${path} has no section "${section}"`];
    });
    expect(broken).toEqual([]);
  });
});

describe("slugOf, as GitHub makes anchors", () => {
  it.each([
    ["8. Limits", "8-limits"],
    ["4.7 List Domains", "47-list-domains"],
    ["cursor=all and export", "cursorall-and-export"],
    ["Faults: every wait is bounded", "faults-every-wait-is-bounded"],
    ["REST (the legacy API)", "rest-the-legacy-api"],
    ["The Domain read plan (`src/query/domain-read/`)", "the-domain-read-plan-srcquerydomain-read"],
    ["Measuring: `npm run bench`", "measuring-npm-run-bench"],
    [
      "2026-11-24: shared App and technology text, 20,000 Domains",
      "2026-11-24-shared-app-and-technology-text-20000-domains",
    ],
  ])("%s → #%s", (heading, slug) => {
    expect(slugOf(heading)).toBe(slug);
  });
});
