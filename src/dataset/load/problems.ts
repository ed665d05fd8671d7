/**
 * Problems found in a snapshot, as `file:line: field: problem`. Every problem is counted; at most
 * MAX_LISTED are kept, so a systematically broken file cannot exhaust memory.
 */
export const MAX_LISTED = 10_000;

/** The lines of one file whose records a problem follows from; `more` are counted, not cited. */
export interface FollowsFrom {
  file: string;
  lines: number[];
  more: number;
}

interface Listed {
  file: string;
  line: number;
  text: string;
  follows?: FollowsFrom;
}

export class Problems {
  private readonly own: Listed[] = [];
  private readonly following: Listed[] = [];
  private readonly fileOrder = new Map<string, number>();
  total = 0;
  /** How many problems follow from another record's (counted, listed or not). */
  followOns = 0;

  /** Lists these files' problems in this order (others: in order of first appearance). */
  orderFiles(files: string[]): void {
    for (const f of files) this.rank(f);
  }

  /**
   * `follows`: the records whose own problems caused this one (a count one short because they
   * were dropped). Such problems are listed after every record's own, naming those lines.
   */
  add(file: string, line: number, text: string, follows?: FollowsFrom): void {
    this.rank(file);
    if (follows) this.rank(follows.file);
    for (const part of text.split("\n")) {
      this.total++;
      if (follows) this.followOns++;
      const p = { file, line, text: part, follows };
      if (this.own.length + this.following.length < MAX_LISTED) (follows ? this.following : this.own).push(p);
      else if (!follows && this.following.length > 0) {
        // A record's own problem is worth more than a consequence of another's.
        this.following.pop();
        this.own.push(p);
      }
    }
  }

  /**
   * Each record's own problems, by file and line; then those that follow from them, by the line
   * they follow from, each ending "(follows from file:line)".
   */
  lines(): string[] {
    const at = (file: string, line: number) => (this.fileOrder.get(file) ?? 0) * 2 ** 32 + line;
    const own = [...this.own].sort((a, b) => at(a.file, a.line) - at(b.file, b.line));
    const cause = (p: Listed) => (p.follows ? at(p.follows.file, p.follows.lines[0] ?? 0) : 0);
    const following = [...this.following].sort(
      (a, b) => cause(a) - cause(b) || at(a.file, a.line) - at(b.file, b.line),
    );
    return [
      ...own.map((p) => `${p.file}:${p.line}: ${p.text}`),
      ...following.map((p) => `${p.file}:${p.line}: ${p.text} (follows from ${describe(p.follows)})`),
    ];
  }

  summary(): string {
    const listed = this.own.length + this.following.length;
    let text = `${this.total} problem${this.total === 1 ? "" : "s"} found`;
    if (this.followOns > 0) {
      text += `, ${this.followOns} of which follow${this.followOns === 1 ? "s" : ""} from others (listed last)`;
    }
    return this.total > listed ? `${text}; ${listed} are listed` : text;
  }

  private rank(file: string): void {
    if (!this.fileOrder.has(file)) this.fileOrder.set(file, this.fileOrder.size);
  }
}

function describe(f: FollowsFrom | undefined): string {
  if (!f) return "";
  const cited = f.lines.map((l) => `${f.file}:${l}`).join(", ");
  return f.more > 0 ? `${cited} and ${f.more} more` : cited;
}

export class LoadValidationError extends Error {
  override name = "LoadValidationError";
  constructor(readonly problems: Problems) {
    super(`the snapshot was not loaded: ${problems.summary()}\n${problems.lines().join("\n")}`);
  }
}
