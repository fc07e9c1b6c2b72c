import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  setCurrentDetails,
  upsertSearchAttributes,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { childEventSignal, closeSignal, closeUpdate, sendUpdate, sessionStateQuery } from '../shared/definitions';
import { COHORT_STATUS } from '../shared/search-attributes';
import { sessionDetailsMarkdown } from '../shared/render';
import type { Exchange, SessionCarry, SessionInput, SessionResult, SessionState, SessionStatus } from '../shared/session-types';
import { CARRY_VERSION } from '../shared/session-types';
import { modelActivities, toolActivities } from './activities';
import { AgentLoop, type LoopStatus } from './agent-loop';
import { Delegator } from './delegation';
import { describeFailure } from './failures';
import { orchestrationHandlers } from './orchestration';
import { runSettled } from './settle';
import { makeToolExecutor, toolDefinitions } from './tool-executor';

const MAX_TOOL_RESULT_CHARS = 50_000;
/** An interactive session with no follow-up for this long ends. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
/** Continue-as-new past this many history events even if Temporal does not suggest it yet. */
export const DEFAULT_CONTINUE_AS_NEW_EVENTS = 10_000;

/**
 * One research session: the lead agent's loop, delegating to live subagent instances. With
 * `interactive`, it stays open for follow-ups (`send` update) until `close` or the idle timeout.
 */
export async function sessionWorkflow(input: SessionInput): Promise<SessionResult> {
  const { team, carry } = input;
  const opts = input.options ?? {};
  const info = workflowInfo();
  const sessionId = info.workflowId;
  const llmTaskQueue = input.llmTaskQueue ?? `${info.taskQueue}-llm`;
  let status: SessionStatus = 'running';
  let answer = carry?.answer;
  let error: string | undefined;
  let closing = false;
  const exchanges: Exchange[] = carry?.exchanges ?? [{ question: input.task }];

  let publishedStatus: SessionStatus = 'running';
  const progress = () => {
    setCurrentDetails(sessionDetailsMarkdown(state()));
    if (opts.searchAttributes && status !== publishedStatus) {
      // Only on change: every upsert is a history event.
      upsertSearchAttributes([{ key: COHORT_STATUS, value: status }]);
      publishedStatus = status;
    }
  };
  const delegator: Delegator = new Delegator({
    ownerId: sessionId,
    ownerLabel: 'lead',
    team,
    llmTaskQueue,
    depth: 0,
    ownTools: team.lead.tools,
    ownModel: team.lead.model,
    ownUsage: () => lead.usage,
    ownTurns: () => lead.turns,
    history: () => lead.messages,
    budget: { usd: team.limits.budgetUsd, tokens: team.limits.budgetTokens },
    instanceIdleTimeoutMs: opts.instanceIdleTimeoutMs,
    searchAttributes: opts.searchAttributes,
    onProgress: progress,
    restore: carry?.delegation,
  });
  const lead: AgentLoop = new AgentLoop({
    agentId: 'lead',
    label: 'lead',
    model: team.lead.model,
    system: team.lead.prompt,
    tools: () => [...toolDefinitions(team.lead.tools), ...delegator.toolDefinitions()],
    maxTokens: team.lead.maxTokens,
    maxTurns: team.lead.maxTurns,
    pricing: team.pricing,
    llm: modelActivities(llmTaskQueue, team.limits.modelRetry),
    conversationKey: `${sessionId}#lead`,
    onProgress: progress,
    takeInbox: () => delegator.takeInbox(),
    budgetExhausted: () => delegator.budgetSpent(),
    beforeTurn: () => maybeContinueAsNew('turn'),
    restore: carry?.lead,
    executeTool: makeToolExecutor({
      agentLabel: 'lead',
      granted: team.lead.tools,
      orchestration: orchestrationHandlers(delegator),
      noDelegationReason: '',
      tools: toolActivities(),
      maxResultChars: MAX_TOOL_RESULT_CHARS,
    }),
  });

  function state(): SessionState {
    return {
      sessionId,
      team: team.name,
      task: input.task,
      status,
      lead: { model: team.lead.model, turns: lead.turns, usage: lead.usage, last: lead.last },
      agents: delegator.instances,
      usage: delegator.totalUsage(),
      answer,
      error,
      definitions: Object.values(delegator.s.definitions).map(({ name, description, tools, model }) => ({ name, description, tools, model })),
      thoughts: delegator.s.thoughts,
      inbox: delegator.s.inbox.length,
      exchanges,
      interactive: Boolean(input.interactive),
      runs: (carry?.runs ?? 0) + 1,
    };
  }

  function result(): SessionResult {
    const s = state();
    return {
      workflowId: sessionId,
      status: s.status,
      answer: s.answer ?? '',
      usage: s.usage,
      agents: s.agents.map(({ id, name, status, turns, usage }) => ({ id, name, status, turns, usage })),
      ...(s.error ? { error: s.error } : {}),
    };
  }

  /**
   * Only between lead turns with no child at work (sleeping instances are fine: they were started
   * with ABANDON policies and signal the session by workflow id, so the new run gets them).
   */
  async function maybeContinueAsNew(phase: SessionCarry['phase']): Promise<void> {
    if (delegator.hasRunning()) return;
    const now = workflowInfo();
    if (!now.continueAsNewSuggested && now.historyLength < (opts.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_EVENTS)) return;
    await condition(allHandlersFinished);
    const next: SessionCarry = {
      version: CARRY_VERSION,
      runs: (carry?.runs ?? 0) + 1,
      lead: lead.snapshot(),
      delegation: delegator.snapshot(),
      exchanges,
      phase,
      ...(answer !== undefined ? { answer } : {}),
    };
    await continueAsNew<typeof sessionWorkflow>({ ...input, carry: next });
  }

  setHandler(childEventSignal, (e) => delegator.onEvent(e));
  setHandler(sessionStateQuery, state);
  setHandler(
    sendUpdate,
    (message) => {
      exchanges.push({ question: message });
      progress();
      return { exchange: exchanges.length - 1 };
    },
    {
      validator: (message) => {
        if (typeof message !== 'string' || message.trim() === '') throw new Error('send: the message is empty');
        if (!input.interactive) throw new Error(`send: session ${sessionId} is not interactive (start it with --interactive)`);
        if (closing || status !== 'running' && status !== 'idle') throw new Error(`send: session ${sessionId} is closing`);
      },
    },
  );
  setHandler(closeUpdate, () => {
    closing = true;
    return { closing: true as const };
  });
  setHandler(closeSignal, () => void (closing = true));

  if (carry && carry.version !== CARRY_VERSION) {
    throw ApplicationFailure.create({ type: 'BadCarry', message: `saved state version ${String(carry.version)} is not ${CARRY_VERSION}`, nonRetryable: true });
  }

  try {
    let resumeTurn = carry?.phase === 'turn';
    let finalStatus: LoopStatus = 'completed';
    for (;;) {
      const pending = exchanges.find((e) => e.answer === undefined);
      if (pending) {
        status = 'running';
        const start = resumeTurn ? () => lead.resume() : () => lead.run(pending.question);
        resumeTurn = false;
        const outcome = await runSettled(lead, delegator, start);
        pending.answer = outcome.text;
        pending.status = outcome.status;
        answer = outcome.text;
        finalStatus = outcome.status;
        progress();
        continue;
      }
      if (!input.interactive || closing) break;
      status = 'idle';
      progress();
      await maybeContinueAsNew('idle');
      const woke = await condition(() => closing || exchanges.some((e) => e.answer === undefined), opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
      if (!woke) break;
    }
    closing = true;
    await delegator.closeAll();
    status = finalStatus;
    progress();
    return result();
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      // Cancel every child and wait (bounded) for their partial usage before ending.
      await CancellationScope.nonCancellable(() => delegator.closeAll());
      status = 'cancelled';
      progress();
      throw err;
    }
    status = 'failed';
    error = `lead failed: ${describeFailure(err)}`;
    await CancellationScope.nonCancellable(() => delegator.closeAll());
    progress();
    // Fail the workflow (not the workflow task, which would retry forever) with the result attached.
    throw ApplicationFailure.create({ type: 'SessionFailed', message: error, nonRetryable: true, details: [result()] });
  }
}
