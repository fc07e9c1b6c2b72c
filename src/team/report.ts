import { isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';
import type { z } from 'zod';

/** A location in the team file: keys and list indexes from the top, e.g. ['agents', 'writer', 'tools', 0]. */
export type Path = readonly (string | number)[];

/** `agents.writer.tools[0]` */
export function formatPath(path: Path): string {
  return path
    .map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i === 0 ? seg : `.${seg}`))
    .join('');
}

/**
 * The line of the YAML node at `path` (1-based). For a mapping entry it is the key's line, which is
 * where a reader looks; when the path does not exist (a missing key) it is the nearest parent's line.
 */
export function lineOf(doc: Document, lines: LineCounter, path: Path): number | undefined {
  let node: unknown = doc.contents;
  // A missing top-level key has no better line than none at all (line 1 would mislead).
  let line: number | undefined;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(seg));
      if (!pair) break;
      line = lineAt(pair.key, lines) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number' && seg < node.items.length) {
      node = node.items[seg];
      line = lineAt(node, lines) ?? line;
    } else {
      break;
    }
  }
  return line;
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

function lineAt(node: unknown, lines: LineCounter): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range ? lines.linePos(range[0]).line : undefined;
}

interface Entry {
  line: number;
  text: string;
}

/** Collects errors and warnings as `path (line N): message` strings, in file order. */
export class Report {
  private readonly errorEntries: Entry[] = [];
  private readonly warningEntries: Entry[] = [];

  constructor(private readonly locate: (path: Path) => number | undefined = () => undefined) {}

  error(path: Path, message: string): void {
    this.errorEntries.push(this.entry(path, message));
  }

  warn(path: Path, message: string): void {
    this.warningEntries.push(this.entry(path, message));
  }

  get errors(): string[] {
    return byLine(this.errorEntries);
  }

  get warnings(): string[] {
    return byLine(this.warningEntries);
  }

  /**
   * Validates `value` with `schema`; on failure reports every issue under `path` and returns
   * undefined, so the caller can skip checks that need this part and still check the rest.
   */
  check<S extends z.ZodType>(schema: S, value: unknown, path: Path): z.output<S> | undefined {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      const at = [...path, ...(issue.path as (string | number)[])];
      if (issue.code === 'unrecognized_keys') {
        const known = knownKeys(schema, issue.path as (string | number)[]);
        for (const key of issue.keys) this.error([...at, key], unknownKeyMessage(key, known));
      } else {
        this.error(at, issueMessage(issue, valueAt(value, issue.path as (string | number)[])));
      }
    }
    return undefined;
  }

  /**
   * Like check() for a strict object, but when the only problems are unknown keys it still returns
   * the known fields (with ok = false), so the rest of that object gets checked too.
   */
  checkObject<S extends z.ZodObject>(schema: S, value: unknown, path: Path): { data?: z.output<S>; ok: boolean } {
    const data = this.check(schema, value, path);
    if (data !== undefined) return { data, ok: true };
    const loose = schema.strip().safeParse(value);
    return { data: loose.success ? (loose.data as z.output<S>) : undefined, ok: false };
  }

  private entry(path: Path, message: string): Entry {
    if (path.length === 0) return { line: 0, text: message };
    const line = this.locate(path);
    return { line: line ?? 0, text: `${formatPath(path)}${line ? ` (line ${line})` : ''}: ${message}` };
  }
}

/** Stable sort: problems read top to bottom like the file; whole-file ones first. */
function byLine(entries: Entry[]): string[] {
  return [...entries].sort((a, b) => a.line - b.line).map((e) => e.text);
}

export function unknownKeyMessage(key: string, known: string[]): string {
  const close = known.find((k) => editDistance(k, key) <= 2);
  const hint = close ? `; did you mean "${close}"?` : known.length ? ` (allowed: ${known.join(', ')})` : '';
  return `unknown key "${key}"${hint}`;
}

/** Keys allowed by the (nested) object schema at `path`, for "did you mean" hints. */
function knownKeys(schema: z.ZodType, path: (string | number)[]): string[] {
  let s: unknown = schema;
  for (const seg of path) {
    s = unwrap(s);
    const shape = (s as { shape?: Record<string, unknown> }).shape;
    const element = (s as { element?: unknown }).element;
    const valueType = (s as { def?: { valueType?: unknown } }).def?.valueType;
    if (typeof seg === 'string' && shape && seg in shape) s = shape[seg];
    else if (typeof seg === 'number' && element) s = element;
    else if (valueType) s = valueType;
    else return [];
  }
  const shape = (unwrap(s) as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

function unwrap(s: unknown): unknown {
  let cur = s as { def?: { type?: string; innerType?: unknown; in?: unknown } };
  while (cur?.def && (cur.def.type === 'optional' || cur.def.type === 'nullable' || cur.def.type === 'pipe')) {
    cur = (cur.def.type === 'pipe' ? cur.def.in : cur.def.innerType) as typeof cur;
  }
  return cur;
}

function valueAt(root: unknown, path: (string | number)[]): unknown {
  let v = root;
  for (const seg of path) v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[seg] : undefined;
  return v;
}

const EXPECTED: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
};

export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'an empty value';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return String(v);
}

/** Messages for people, not zod's defaults ("Invalid input: expected ..."). */
function issueMessage(issue: z.core.$ZodIssue, input: unknown): string {
  if (input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) return 'required';
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'int' && typeof input === 'number') return `expected a whole number, got ${input}`;
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${describeValue(input)}`;
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      if (issue.origin === 'array') return `must list at least ${issue.minimum} item(s)`;
      return `must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}, got ${describeValue(input)}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      return `must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}, got ${describeValue(input)}`;
    case 'invalid_value':
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, got ${describeValue(input)}`;
    default:
      // custom, invalid_format (regex/url): the schema carries a message written for people.
      return issue.message;
  }
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}
