/**
 * What the records that failed named, so that a cross-record problem their absence causes (an
 * App's installs one short, an App that "names no App") is reported as following from them.
 * Bounded: at most `limit` keys (App ids, technology names) and CITED lines of each; past the
 * limit a problem is reported as the record's own rather than memory growing with a broken file.
 */
// About 9 MB when full (measured: 100,000 keys of 37 characters took 47 MB of heap); as many keys
// as a large dataset has Apps.
export const MAX_CULPRIT_KEYS = 20_000;
/** Lines cited per key; the rest are only counted. */
const CITED = 3;

/** How many failed lines named a key, and the first CITED of them. */
export interface Culprit {
  count: number;
  lines: number[];
}

const NONE: Culprit = Object.freeze({ count: 0, lines: Object.freeze([]) as unknown as number[] });

export class Culprits {
  private readonly apps = new Map<string, number>();
  private readonly installs = new Map<string, Culprit>();
  private readonly technologies = new Map<string, Culprit>();

  constructor(private readonly limit = MAX_CULPRIT_KEYS) {}

  get size(): number {
    return this.apps.size + this.installs.size + this.technologies.size;
  }

  /** The App record with this id, at `line`, was dropped. */
  app(id: string, line: number): void {
    if (!this.apps.has(id) && this.size < this.limit) this.apps.set(id, line);
  }

  /** The Domain at `line` installs this App, but the install was not counted. */
  uncounted(appId: string, line: number): void {
    this.note(this.installs, appId, line);
  }

  /** The Domain at `line` lists this technology, but was dropped. */
  unlisted(technology: string, line: number): void {
    this.note(this.technologies, technology, line);
  }

  ofApp(id: string): number | undefined {
    return this.apps.get(id);
  }

  ofInstalls(appId: string): Culprit {
    return this.installs.get(appId) ?? NONE;
  }

  ofTechnology(name: string): Culprit {
    return this.technologies.get(name) ?? NONE;
  }

  private note(map: Map<string, Culprit>, key: string, line: number): void {
    let c = map.get(key);
    if (!c) {
      if (this.size >= this.limit) return;
      c = { count: 0, lines: [] };
      map.set(key, c);
    }
    c.count++;
    if (c.lines.length < CITED) c.lines.push(line);
  }
}
