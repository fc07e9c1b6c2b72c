import {
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { agentMessageSignal, agentStateQuery, childEventSignal } from '../shared/definitions';
import type { AgentMessage, AgentStatus, ChildEvent, ChildResult, InstanceState, SubagentInput } from '../shared/session-types';
import { modelActivities, toolActivities } from './activities';
import { AgentLoop } from './agent-loop';
import { isSpent } from './budget';
import { Delegator } from './delegation';
import { describeFailure, failureType } from './failures';
import { orchestrationHandlers } from './orchestration';
import { runSettled } from './settle';
import { makeToolExecutor, toolDefinitions } from './tool-executor';

const MAX_TOOL_RESULT_CHARS = 50_000;
/** A sleeping instance ends after this long without a new task. */
export const DEFAULT_INSTANCE_IDLE_MS = 10 * 60_000;

/**
 * One live subagent instance: a clean context (its prompt, its task, the context it was given),
 * its own tools, its results signalled to the parent's inbox. Between tasks it sleeps until the
 * parent triggers a new one (history kept), closes it, or the idle timeout passes.
 */
export async function subagentWorkflow(input: SubagentInput): Promise<ChildResult> {
  const { spec } = input;
  const selfId = workflowInfo().workflowId;
  const label = input.agentId.split('/').pop() ?? spec.name;
  let state: InstanceState = 'running';
  let status: AgentStatus = 'running';
  let taskNo = 1;
  let taskText = firstTask(input);
  const notes: string[] = [];
  const triggers: AgentMessage[] = [];
  const parent = getExternalWorkflowHandle(input.parentWorkflowId);
  const cap = { usd: input.budgetUsd, tokens: input.budgetTokens };
  const team = input.team;
  const maxDepth = input.maxDepth ?? team?.limits.maxDepth ?? 1;

  // Reports never fail the child: a parent that is gone has nobody waiting.
  const report = (e: ChildEvent) => CancellationScope.nonCancellable(() => parent.signal(childEventSignal, e).catch(() => undefined));
  let reportedTokens = 0;
  const progress = () => {
    const usage = total();
    const tokens = usage.input_tokens + usage.output_tokens;
    if (tokens === reportedTokens) return;
    reportedTokens = tokens;
    void report({ kind: 'progress', agentId: input.agentId, usage, turns: loop.turns, last: loop.last });
  };

  // Below max_depth a subagent delegates with the same tools as the lead.
  const delegator = team
    ? new Delegator({
        ownerId: selfId,
        ownerLabel: label,
        team,
        llmTaskQueue: input.llmTaskQueue,
        depth: input.depth,
        ownTools: spec.tools,
        ownModel: spec.model,
        ownUsage: () => loop.usage,
        ownTurns: () => loop.turns,
        history: () => loop.messages,
        budget: cap,
        instanceIdleTimeoutMs: input.idleTimeoutMs,
        onProgress: progress,
      })
    : undefined;
  const total = () => (delegator ? delegator.totalUsage() : loop.usage);

  const loop: AgentLoop = new AgentLoop({
    agentId: input.agentId,
    label,
    model: spec.model,
    system: spec.prompt,
    tools: () => [...toolDefinitions(spec.tools), ...(delegator?.toolDefinitions() ?? [])],
    maxTokens: spec.maxTokens,
    maxTurns: input.maxTurns,
    pricing: input.pricing,
    llm: modelActivities(input.llmTaskQueue, team?.limits.modelRetry),
    conversationKey: `${selfId}#main`,
    onProgress: progress,
    takeInbox: () => [...notes.splice(0).map((t) => `Message from your parent: ${t}`), ...(delegator?.takeInbox() ?? [])],
    budgetExhausted: () => isSpent(total(), cap),
    executeTool: makeToolExecutor({
      agentLabel: label,
      granted: spec.tools,
      orchestration: delegator ? orchestrationHandlers(delegator) : {},
      noDelegationReason: `subagents at depth ${input.depth} cannot delegate (limits.max_depth is ${maxDepth}; raise it to let subagents delegate)`,
      tools: toolActivities(),
      maxResultChars: MAX_TOOL_RESULT_CHARS,
    }),
  });

  if (delegator) setHandler(childEventSignal, (e) => delegator.onEvent(e));
  setHandler(agentMessageSignal, (m) => {
    if (m.trigger) triggers.push(m);
    else notes.push(m.text);
  });
  setHandler(agentStateQuery, () => ({
    id: input.agentId,
    name: spec.name,
    model: spec.model,
    status,
    state,
    task: taskText,
    tasks: taskNo,
    turns: loop.turns,
    usage: total(),
    last: loop.last,
  }));

  const resultOf = (s: ChildResult['status'], text: string, error?: ChildResult['error']): ChildResult => ({
    agentId: input.agentId,
    task: taskNo,
    status: s,
    text,
    ...(error ? { error } : {}),
    usage: total(),
    turns: loop.turns,
  });
  const end = async (s: 'done' | 'closed' | 'failed') => {
    state = s;
    await delegator?.closeAll();
    await report({ kind: 'ended', agentId: input.agentId, state: s, usage: total(), turns: loop.turns });
  };

  let last: ChildResult | undefined;
  try {
    for (;;) {
      state = 'running';
      status = 'running';
      let result: ChildResult;
      try {
        const outcome = await runSettled(loop, delegator, () => loop.run(taskText));
        result = resultOf(outcome.status, outcome.text);
      } catch (err) {
        if (isCancellation(err)) throw err;
        result = resultOf('failed', '', { type: failureType(err), message: describeFailure(err) });
        status = 'failed';
        await report({ kind: 'result', ...result });
        await end('failed');
        throw ApplicationFailure.create({ type: 'SubagentFailed', message: result.error?.message ?? 'failed', nonRetryable: true, details: [result] });
      }
      last = result;
      status = result.status;
      state = 'sleeping';
      await report({ kind: 'result', ...result });
      const woke = await condition(() => triggers.length > 0, input.idleTimeoutMs ?? DEFAULT_INSTANCE_IDLE_MS);
      if (!woke) {
        await end('done');
        return result;
      }
      const next = triggers.shift()!;
      taskText = next.text;
      taskNo = next.task ?? taskNo + 1;
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Closed or cancelled with the session: close our own children first so their usage rolls
    // up, then report the partial task (if one was running) and the end.
    await CancellationScope.nonCancellable(async () => {
      if (state === 'running') {
        await delegator?.closeAll();
        status = 'cancelled';
        last = resultOf('cancelled', '', { type: 'cancelled', message: 'cancelled by its parent' });
        await report({ kind: 'result', ...last });
      }
      await end('closed');
    });
    throw err;
  }
}

function firstTask(input: SubagentInput): string {
  let task = input.task;
  if (input.history) task = `<parent_history>\n${input.history}\n</parent_history>\n\n${task}`;
  if (input.context) task = `${task}\n\n<context>\n${input.context}\n</context>`;
  return task;
}
