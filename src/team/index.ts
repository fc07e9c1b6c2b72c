/** Team files (DESIGN.md §2): load YAML, validate with line numbers, resolve into a TeamSpec. */
export { TeamValidationError } from './errors';
export { loadTeam, parseTeam, type LoadedTeam } from './load';
export { parseDuration } from './duration';
export { MODEL_RETRY_DEFAULTS } from './resolve';
