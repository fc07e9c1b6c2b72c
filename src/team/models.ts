import { BUILTIN_MODELS } from '../shared/team';
import type { Path, Report } from './report';

/** Full model ids: `claude-…`, or any provider's id with a '-' and a digit (Anthropic-compatible servers). */
export function looksLikeModelId(value: string): boolean {
  return (
    /^claude-[a-z0-9.-]+$/.test(value) ||
    (/^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/.test(value) && value.includes('-') && /\d/.test(value))
  );
}

/**
 * The team's alias table: built-ins overridden by `models:`. An alias may point at another
 * alias (`fast: haiku`); anything else must be a full model id.
 */
export function resolveAliases(declared: Record<string, string> | undefined, report: Report): Record<string, string> {
  const models: Record<string, string> = { ...BUILTIN_MODELS };
  const pointers: [string, string][] = [];
  for (const [alias, target] of Object.entries(declared ?? {})) {
    const path = ['models', alias];
    if (alias === 'inherit') {
      report.error(path, '"inherit" is reserved (it means "the lead\'s model")');
    } else if (!/^[A-Za-z][A-Za-z0-9_.-]*$/.test(alias)) {
      report.error(path, 'an alias uses letters, digits, ".", "_" and "-", starting with a letter');
    } else if (looksLikeModelId(target)) {
      models[alias] = target;
    } else {
      pointers.push([alias, target]);
    }
  }
  // Second pass, so `fast: haiku` follows an overridden `haiku` wherever it is declared.
  for (const [alias, target] of pointers) {
    if (target in models && !pointers.some(([a]) => a === target)) models[alias] = models[target];
    else report.error(['models', alias], `"${target}" is neither a model id (e.g. claude-haiku-4-5) nor an alias of one`);
  }
  return models;
}

/**
 * Turns a `model:` value into a full id. `leadModel` is the lead's resolved id for `inherit`,
 * or undefined when resolving the lead itself (which has nothing to inherit from).
 */
export function resolveModel(
  value: string,
  models: Record<string, string>,
  leadModel: string | undefined,
  path: Path,
  report: Report,
): string | undefined {
  if (value in models) return models[value];
  if (value === 'inherit') {
    if (leadModel !== undefined) return leadModel;
    report.error(path, '"inherit" is only for agents (it means the lead\'s model); give the lead an alias or a full model id');
    return undefined;
  }
  if (looksLikeModelId(value)) return value;
  const known = [...Object.keys(models), ...(leadModel !== undefined ? ['inherit'] : [])].join(', ');
  report.error(path, `unknown model alias "${value}" (known: ${known}, or a full model id)`);
  return undefined;
}
