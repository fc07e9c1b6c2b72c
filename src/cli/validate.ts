import { TeamValidationError, loadTeam } from '../team';
import type { TeamSpec } from '../shared/team';

/** Where `cohort validate` writes; process streams by default, string sinks in tests. */
export interface ValidateIO {
  out: { write(chunk: string): unknown };
  err: { write(chunk: string): unknown };
}

/**
 * `cohort validate <team.yaml>`: exit 0 and one summary line on stdout for a usable team
 * (warnings on stderr), exit 2 and one line per problem on stderr otherwise.
 */
export async function runValidate(
  file: string,
  io: ValidateIO = { out: process.stdout, err: process.stderr },
): Promise<number> {
  try {
    const { team, warnings } = await loadTeam(file);
    for (const w of warnings) io.err.write(`warning: ${w}\n`);
    io.out.write(`${summarize(team)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof TeamValidationError)) throw err;
    for (const line of problemLines(file, err.problems)) io.err.write(`${line}\n`);
    return 2;
  }
}

/** `research: valid — lead (claude-sonnet-4-5, 2 tools) + 3 agents: researcher, analyst, writer` */
export function summarize(team: TeamSpec): string {
  const n = team.lead.tools.length;
  const lead = `lead (${team.lead.model}, ${n} tool${n === 1 ? '' : 's'})`;
  const names = Object.keys(team.agents);
  const agents = names.length === 0 ? 'no agents' : `${names.length} agent${names.length === 1 ? '' : 's'}: ${names.join(', ')}`;
  return `${team.name}: valid — ${lead} + ${agents}`;
}

/** One line per problem, each led by the file (YAML syntax errors already read `file:line:col: ...`, the form editors link to). */
export function problemLines(file: string, problems: string[]): string[] {
  return problems.map((p) => (p.startsWith(`${file}:`) ? p : `${file}: ${p}`));
}
