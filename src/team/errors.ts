/**
 * Thrown by the team loader when a team file cannot be used. It carries every problem found,
 * not just the first, so a user can fix the whole file in one pass.
 */
export class TeamValidationError extends Error {
  /** The team file as it was given to the loader. */
  readonly file: string;
  /** One line per problem, `path: message` (a YAML syntax error is `file:line:col: message`). */
  readonly problems: string[];

  constructor(file: string, problems: string[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`${file}: invalid team (${count})\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = new.target.name;
    this.file = file;
    this.problems = problems;
  }
}
