/**
 * The simulated model: an Anthropic-compatible Messages API server on loopback for offline runs
 * and tests (DESIGN.md §6). See types.ts for options and the script format.
 */
export { startSim } from './server';
export { loadSimScript, parseSimScript, SimScriptError } from './script';
export { defaultPolicy } from './policy';
export type {
  SimOptions,
  SimServer,
  SimStats,
  SimLogEntry,
  SimScript,
  SimRule,
  SimMatch,
  SimReplyBody,
  SimReplyBlock,
  SimErrorReply,
} from './types';
