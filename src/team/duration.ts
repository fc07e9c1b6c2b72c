const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

export const DURATION_HINT = 'expected a positive duration like 60s, 2m, 1500ms, 1h or a number of seconds';

/**
 * Parses a team-file duration into milliseconds: `60s`, `2m`, `1500ms`, `1h`, `1.5m`, or a bare
 * number (YAML number or numeric string) meaning seconds. Returns undefined when the value is
 * not a positive duration.
 *
 * @example parseDuration('2m') // 120000
 */
export function parseDuration(value: unknown): number | undefined {
  let ms: number | undefined;
  if (typeof value === 'number') {
    ms = value * 1_000;
  } else if (typeof value === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
    if (m) ms = Number(m[1]) * UNIT_MS[m[2] ?? 's'];
  }
  if (ms === undefined || !Number.isFinite(ms)) return undefined;
  const rounded = Math.round(ms);
  return rounded > 0 ? rounded : undefined;
}
