/**
 * What a line that is not JSON holds before it breaks, read leniently so that the keys it names
 * (record.ts namedKeys) can be found: the objects and arrays open at the break, with every member
 * and item that was read whole before it (a string or number cut short is left out). Undefined
 * when nothing was. Only lines that JSON.parse refused come here, so speed does not matter.
 *
 * @example jsonPrefix('{"id": "app-1",, "token": "x"}') // → { id: "app-1" }
 */
export function jsonPrefix(text: string): unknown {
  try {
    return new PrefixReader(text).value().value;
  } catch {
    return undefined; // nested deeper than the call stack: nothing worth reading
  }
}

/** A value read, and whether the text broke inside it (a broken container is still kept). */
interface Read {
  value: unknown;
  broken: boolean;
}

const BROKEN: Read = { value: undefined, broken: true };
const STRING = /"(?:[^"\\\n\r]|\\.)*"/y;
const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

class PrefixReader {
  private at = 0;

  constructor(private readonly text: string) {}

  value(): Read {
    this.space();
    const c = this.text[this.at];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    SCALAR.lastIndex = this.at;
    const m = SCALAR.exec(this.text);
    if (!m) return BROKEN;
    this.at += m[0].length;
    // A number that ends the text may have been cut short.
    if (this.at === this.text.length && /\d$/.test(m[0])) return BROKEN;
    return { value: JSON.parse(m[0]), broken: false };
  }

  private object(): Read {
    const object: Record<string, unknown> = {};
    const done = (broken: boolean): Read => ({ value: object, broken });
    this.at++;
    if (this.next("}")) return done(false);
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') return done(true);
      const key = this.string();
      if (key.broken || !this.next(":")) return done(true);
      const member = this.value();
      // Defined, not assigned: a "__proto__" key is a member, as JSON.parse makes it.
      if (!member.broken || isContainer(member.value)) {
        Object.defineProperty(object, key.value as string, {
          value: member.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      if (member.broken) return done(true);
      if (this.next(",")) continue;
      return done(!this.next("}"));
    }
  }

  private array(): Read {
    const array: unknown[] = [];
    const done = (broken: boolean): Read => ({ value: array, broken });
    this.at++;
    if (this.next("]")) return done(false);
    for (;;) {
      const item = this.value();
      if (!item.broken || isContainer(item.value)) array.push(item.value);
      if (item.broken) return done(true);
      if (this.next(",")) continue;
      return done(!this.next("]"));
    }
  }

  private string(): Read {
    STRING.lastIndex = this.at;
    const m = STRING.exec(this.text);
    if (!m) return BROKEN;
    this.at += m[0].length;
    try {
      return { value: JSON.parse(m[0]), broken: false };
    } catch {
      return BROKEN; // a bad escape
    }
  }

  /** Skips white space, then steps over `c` if it is next. */
  private next(c: string): boolean {
    this.space();
    if (this.text[this.at] !== c) return false;
    this.at++;
    return true;
  }

  private space(): void {
    while (/[ \t\n\r]/.test(this.text[this.at] ?? "")) this.at++;
  }
}

const isContainer = (v: unknown): boolean => typeof v === "object" && v !== null;
