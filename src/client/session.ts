/** Starting, following and reading sessions through the Temporal client. */
import { randomBytes } from 'node:crypto';
import { ApplicationFailure, type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { COHORT_STATUS, COHORT_TEAM } from '../shared/search-attributes';
import { closeUpdate, sendUpdate, sessionStateQuery } from '../shared/definitions';
import type { Exchange, SessionInput, SessionOptions, SessionResult, SessionState } from '../shared/session-types';
import type { TeamSpec } from '../shared/team';
import type { sessionWorkflow } from '../workflows';

export type SessionHandle = WorkflowHandle<typeof sessionWorkflow>;

/** `<team>-<yyyymmdd-hhmmss>-<4 hex>`: sortable, readable in the UI, unique enough. */
export function newSessionId(teamName: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${teamName}-${stamp}-${randomBytes(2).toString('hex')}`;
}

export interface StartSessionOptions {
  id?: string;
  taskQueue: string;
  /** Keep the session open for follow-ups (`sendFollowUp`) until `closeSession` or its idle timeout. */
  interactive?: boolean;
  options?: SessionOptions;
}

export { COHORT_TEAM };

export async function startSession(
  client: Client,
  team: TeamSpec,
  task: string,
  opts: StartSessionOptions,
): Promise<SessionHandle> {
  const options = {
    taskQueue: opts.taskQueue,
    workflowId: opts.id ?? newSessionId(team.name),
    args: [
      {
        team,
        task,
        ...(opts.interactive ? { interactive: true } : {}),
        ...(opts.options ? { options: opts.options } : {}),
      },
    ] as [SessionInput],
    staticSummary: summaryLine(task),
    staticDetails: `Team **${team.name}**: lead ${team.lead.model}; agents ${Object.keys(team.agents).join(', ') || 'none'}\n\n${task}`,
  };
  const [input] = options.args;
  try {
    return await client.workflow.start<typeof sessionWorkflow>('sessionWorkflow', {
      ...options,
      args: [{ ...input, options: { ...input.options, searchAttributes: true } }],
      typedSearchAttributes: [
        { key: COHORT_TEAM, value: team.name },
        { key: COHORT_STATUS, value: 'running' },
      ],
    });
  } catch (err) {
    // A server where `cohort setup` never ran lacks the attributes: start anyway, unfilterable.
    if (!/search attribute/i.test(String((err as Error).message))) throw err;
    process.stderr.write(`warning: ${(err as Error).message} (run \`cohort setup\` to register Cohort's search attributes)\n`);
    return client.workflow.start<typeof sessionWorkflow>('sessionWorkflow', options);
  }
}

function summaryLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

export async function querySession(handle: WorkflowHandle): Promise<SessionState> {
  return handle.query(sessionStateQuery);
}

/**
 * Waits for the session to end and returns its result. A failed session carries its result in
 * the failure's details; a cancelled or terminated one is read through the state query.
 */
export async function sessionResult(handle: WorkflowHandle): Promise<SessionResult> {
  try {
    return (await handle.result()) as SessionResult;
  } catch (err) {
    if (err instanceof WorkflowFailedError) {
      const cause = err.cause;
      if (cause instanceof ApplicationFailure && cause.details?.[0]) return cause.details[0] as SessionResult;
      const status = cause?.name === 'CancelledFailure' ? 'cancelled' : 'failed';
      const state = await querySession(handle).catch(() => undefined);
      return {
        workflowId: handle.workflowId,
        status,
        answer: state?.answer ?? '',
        usage: state?.usage ?? { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
        agents: (state?.agents ?? []).map(({ id, name, status: s, turns, usage }) => ({ id, name, status: s, turns, usage })),
        error: cause?.message ?? err.message,
      };
    }
    throw err;
  }
}

/**
 * Calls `onState` with the session's state every `intervalMs` until `done` settles. Query
 * failures while the session starts (no workflow task yet) are skipped, not fatal.
 */
export async function followSession(
  handle: WorkflowHandle,
  done: Promise<unknown>,
  onState: (s: SessionState) => void,
  intervalMs = 500,
): Promise<void> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  while (!finished) {
    const state = await querySession(handle).catch(() => undefined);
    if (state && !finished) onState(state);
    await Promise.race([done.catch(() => undefined), new Promise((r) => setTimeout(r, intervalMs))]);
  }
}

/**
 * Asks an interactive session a follow-up and waits for the lead's answer. The `send` update
 * acknowledges the message at once (or rejects it: empty, not interactive, closing); the answer is
 * then read from the state query.
 */
export async function sendFollowUp(handle: WorkflowHandle, message: string, intervalMs = 300): Promise<Exchange> {
  const { exchange } = await handle.executeUpdate(sendUpdate, { args: [message] });
  return waitForExchange(handle, exchange, intervalMs);
}

/** Waits until exchange `n` of the session (0 = the first task) has its answer. */
export async function waitForExchange(handle: WorkflowHandle, n: number, intervalMs = 300): Promise<Exchange> {
  for (;;) {
    const state = await querySession(handle).catch(() => undefined);
    const ex = state?.exchanges?.[n];
    if (ex?.answer !== undefined) return ex;
    if (state && !['running', 'idle'].includes(state.status)) {
      throw new Error(`session ${handle.workflowId} ended (${state.status}) before answering: ${state.error ?? 'no answer'}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Ends an interactive session after its current turn. */
export async function closeSession(handle: WorkflowHandle): Promise<void> {
  await handle.executeUpdate(closeUpdate);
}

/** Cancels a session: running subagents are cancelled too and report what they spent. */
export async function cancelSession(handle: WorkflowHandle): Promise<SessionResult> {
  await handle.cancel();
  return sessionResult(handle);
}
