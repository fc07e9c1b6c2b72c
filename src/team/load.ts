import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { TeamSpec } from '../shared/team';
import { TeamValidationError } from './errors';
import { Report, lineOf } from './report';
import { resolveTeam } from './resolve';

export interface LoadedTeam {
  /** The team file as given. */
  file: string;
  team: TeamSpec;
  /** Things that work but look wrong, `path (line N): message`; never fatal. */
  warnings: string[];
}

/**
 * Reads and validates a team file; prompt files are read relative to its folder.
 * Throws TeamValidationError listing every problem (a missing file is one problem too).
 *
 * @example
 * const { team, warnings } = await loadTeam('examples/research/team.yaml');
 */
export async function loadTeam(file: string): Promise<LoadedTeam> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a team file' : (err as Error).message;
    throw new TeamValidationError(file, [why]);
  }
  return parseTeam(text, { file, baseDir: dirname(file) });
}

/** Validates team YAML text (synchronous; prompt files are read from `baseDir`). */
export function parseTeam(text: string, opts: { file: string; baseDir: string }): LoadedTeam {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true });
  if (doc.errors.length) {
    throw new TeamValidationError(
      opts.file,
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return `${opts.file}:${pos?.line ?? 1}:${pos?.col ?? 1}: ${firstLine(e.message)}`;
      }),
    );
  }
  const report = new Report((path) => lineOf(doc, lines, path));
  for (const w of doc.warnings) report.warn([], `line ${w.linePos?.[0].line ?? '?'}: ${firstLine(w.message)}`);
  const team = resolveTeam(doc.toJS(), opts.baseDir, report);
  if (!team || report.errors.length) throw new TeamValidationError(opts.file, report.errors);
  return { file: opts.file, team, warnings: report.warnings };
}

/** yaml's pretty messages end with " at line L, column C:" and a code frame; the position is given separately. */
function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}
