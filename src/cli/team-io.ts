import { TeamValidationError, loadTeam, type LoadedTeam } from '../team';
import { CliError } from './errors';
import { problemLines } from './validate';

/** Loads a team for a command; problems end the command with exit 2 and one line each. */
export async function loadTeamOrExit(file: string): Promise<LoadedTeam> {
  try {
    const loaded = await loadTeam(file);
    for (const w of loaded.warnings) process.stderr.write(`warning: ${w}\n`);
    return loaded;
  } catch (err) {
    if (err instanceof TeamValidationError) {
      throw new CliError(problemLines(file, err.problems).join('\n'), 2);
    }
    throw err;
  }
}
