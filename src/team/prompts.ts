import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Path, Report } from './report';

/**
 * Reads an agent's system prompt from `prompt` or `prompt_file` (exactly one; the file is
 * relative to the team file's folder). Returns undefined after reporting a problem.
 */
export function loadPrompt(
  spec: { prompt?: string; prompt_file?: string },
  path: Path,
  baseDir: string,
  report: Report,
): string | undefined {
  const { prompt, prompt_file: file } = spec;
  if (prompt !== undefined && file !== undefined) {
    report.error(path, 'set prompt or prompt_file, not both');
    return undefined;
  }
  if (prompt === undefined && file === undefined) {
    report.error(path, 'set prompt or prompt_file');
    return undefined;
  }
  if (prompt !== undefined) {
    if (prompt.trim() === '') report.error([...path, 'prompt'], "is empty; write the agent's instructions");
    return prompt.trim() || undefined;
  }
  const at = [...path, 'prompt_file'];
  let text: string;
  try {
    text = readFileSync(resolve(baseDir, file as string), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') report.error(at, `no such file ${file}`);
    else if (code === 'EISDIR') report.error(at, `${file} is a folder, not a file`);
    else report.error(at, `cannot read ${file}: ${(err as Error).message}`);
    return undefined;
  }
  if (text.trim() === '') {
    report.error(at, `${file} is empty`);
    return undefined;
  }
  return text.trim();
}
