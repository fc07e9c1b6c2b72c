/**
 * Reading a batch's jobs file: JSONL (`{"id"?, "task", "context"?}` per line), CSV (a header
 * with `task` and optional `id`, `context`) or plain text (one task per non-empty line). Every
 * problem is collected with its line number, so a user fixes the file in one pass before
 * anything starts.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import type { BatchJob } from '../shared/batch-types';

export type JobsFormat = 'jsonl' | 'csv' | 'lines';

/** Job ids become workflow ids and file names: keep them to safe characters. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export class JobsFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(problems.map((p) => `${file}: ${p}`).join('\n'));
    this.name = new.target.name;
  }
}

const jsonJob = z.strictObject({
  id: z.union([z.string(), z.number().int().nonnegative()]).optional(),
  task: z.string().trim().min(1, 'task is empty'),
  context: z.string().optional(),
});

interface RawJob {
  line: number;
  id?: string;
  task: string;
  context?: string;
}

/** `.jsonl`/`.ndjson`/`.json` and `.csv` by extension; otherwise JSONL if the first line is an object. */
export function detectFormat(file: string, text: string): JobsFormat {
  const ext = extname(file).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson' || ext === '.json') return 'jsonl';
  if (ext === '.csv') return 'csv';
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '');
  return first?.trim().startsWith('{') ? 'jsonl' : 'lines';
}

export function readJobsFile(file: string, format?: JobsFormat): BatchJob[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new JobsFileError(file, [`cannot read jobs file: ${(err as Error).message}`]);
  }
  return parseJobs(text, file, format ?? detectFormat(file, text));
}

export function parseJobs(text: string, file: string, format: JobsFormat): BatchJob[] {
  const problems: string[] = [];
  const raw = format === 'jsonl' ? jsonlJobs(text, problems) : format === 'csv' ? csvJobs(text, problems) : lineJobs(text);
  const jobs = assignIds(raw, problems);
  if (problems.length === 0 && jobs.length === 0) problems.push('no jobs in the file');
  if (problems.length) throw new JobsFileError(file, problems);
  return jobs;
}

function jsonlJobs(text: string, problems: string[]): RawJob[] {
  const out: RawJob[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const n = i + 1;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      problems.push(`line ${n}: not valid JSON (${(err as Error).message})`);
      return;
    }
    const parsed = jsonJob.safeParse(value);
    if (!parsed.success) {
      const why = parsed.error.issues.map((is) => (is.path.length ? `${is.path.join('.')}: ${is.message}` : is.message)).join('; ');
      problems.push(`line ${n}: ${why} (expected {"id"?, "task", "context"?})`);
      return;
    }
    const { id, task, context } = parsed.data;
    out.push({ line: n, task, ...(id !== undefined ? { id: String(id) } : {}), ...(context ? { context } : {}) });
  });
  return out;
}

function csvJobs(text: string, problems: string[]): RawJob[] {
  let rows: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    rows = parseCsv(text, { columns: true, info: true, skip_empty_lines: true, trim: true, bom: true });
  } catch (err) {
    const e = err as Error & { lines?: number };
    problems.push(`${e.lines ? `line ${e.lines}: ` : ''}not valid CSV (${e.message})`);
    return [];
  }
  const header = Object.keys(rows[0]?.record ?? {});
  if (rows.length && !header.includes('task')) {
    problems.push(`line 1: the header needs a "task" column (found: ${header.join(', ') || 'none'})`);
    return [];
  }
  const unknown = header.filter((h) => !['id', 'task', 'context'].includes(h));
  if (unknown.length) problems.push(`line 1: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: id, task, context)`);
  const out: RawJob[] = [];
  for (const { record, info } of rows) {
    if (!record.task) {
      problems.push(`line ${info.lines}: task is empty`);
      continue;
    }
    out.push({ line: info.lines, task: record.task, ...(record.id ? { id: record.id } : {}), ...(record.context ? { context: record.context } : {}) });
  }
  return out;
}

function lineJobs(text: string): RawJob[] {
  return text
    .split(/\r?\n/)
    .map((line, i) => ({ line: i + 1, task: line.trim() }))
    .filter((j) => j.task !== '');
}

/** Jobs without an id get `job-0001`... by position; ids must be unique and file-name safe. */
function assignIds(raw: RawJob[], problems: string[]): BatchJob[] {
  const width = Math.max(4, String(raw.length).length);
  const firstLine = new Map<string, number>();
  return raw.map((r, i) => {
    const id = r.id ?? `job-${String(i + 1).padStart(width, '0')}`;
    if (!ID_PATTERN.test(id)) {
      problems.push(`line ${r.line}: id "${id}" must be 1-100 letters, digits, ".", "_" or "-" (it names a workflow and a file)`);
    }
    const earlier = firstLine.get(id);
    if (earlier !== undefined) problems.push(`line ${r.line}: duplicate id "${id}" (first on line ${earlier})`);
    else firstLine.set(id, r.line);
    return { id, task: r.task, ...(r.context ? { context: r.context } : {}) };
  });
}
