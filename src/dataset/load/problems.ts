/**
 * Problems found in a snapshot, as `file:line: field: problem`. Every problem is counted; the first
 * MAX_LISTED are kept, so a systematically broken file cannot exhaust memory.
 */
export const MAX_LISTED = 10_000;

export class Problems {
  private readonly listed: { file: string; line: number; text: string }[] = [];
  total = 0;

  add(file: string, line: number, text: string): void {
    for (const part of text.split("\n")) {
      this.total++;
      if (this.listed.length < MAX_LISTED) this.listed.push({ file, line, text: part });
    }
  }

  /** Sorted by file order of first appearance, then line. */
  lines(): string[] {
    const order = new Map<string, number>();
    for (const p of this.listed) if (!order.has(p.file)) order.set(p.file, order.size);
    return [...this.listed]
      .sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0) || a.line - b.line)
      .map((p) => `${p.file}:${p.line}: ${p.text}`);
  }

  summary(): string {
    const more = this.total - Math.min(this.total, MAX_LISTED);
    return `${this.total} problem${this.total === 1 ? "" : "s"} found${more ? ` (the first ${MAX_LISTED} listed)` : ""}`;
  }
}

export class LoadValidationError extends Error {
  override name = "LoadValidationError";
  constructor(readonly problems: Problems) {
    super(`the snapshot was not loaded: ${problems.summary()}\n${problems.lines().join("\n")}`);
  }
}
