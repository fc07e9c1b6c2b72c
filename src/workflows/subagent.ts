import {
  ApplicationFailure,
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { agentStateQuery, childResultSignal } from '../shared/definitions';
import type { AgentInfo, ChildResult, SubagentInput } from '../shared/session-types';
import { modelActivities, toolActivities } from './activities';
import { AgentLoop } from './agent-loop';
import { describeFailure, failureType } from './failures';
import { makeToolExecutor, toolDefinitions } from './tool-executor';

const MAX_TOOL_RESULT_CHARS = 50_000;

/**
 * One subagent instance: a clean context (its prompt, its task, the context it was given), its
 * own tools, and its result signalled to the parent's inbox.
 */
export async function subagentWorkflow(input: SubagentInput): Promise<ChildResult> {
  const { spec } = input;
  const label = input.agentId.split('/').pop() ?? spec.name;
  let status: AgentInfo['status'] = 'running';
  const loop = new AgentLoop({
    agentId: input.agentId,
    label,
    model: spec.model,
    system: spec.prompt,
    tools: toolDefinitions(spec.tools),
    maxTokens: spec.maxTokens,
    maxTurns: input.maxTurns,
    pricing: input.pricing,
    llm: modelActivities(input.llmTaskQueue),
    conversationKey: `${workflowInfo().workflowId}#main`,
    executeTool: makeToolExecutor({
      agentLabel: label,
      granted: spec.tools,
      orchestration: {},
      noDelegationReason: `subagents cannot delegate at depth ${input.depth} (limits.max_depth is 1; raise it to let subagents delegate)`,
      tools: toolActivities(),
      maxResultChars: MAX_TOOL_RESULT_CHARS,
    }),
  });
  setHandler(agentStateQuery, () => ({
    id: input.agentId,
    name: spec.name,
    model: spec.model,
    status,
    task: input.task,
    turns: loop.turns,
    usage: loop.usage,
    last: loop.last,
  }));

  const task = input.context ? `${input.task}\n\n<context>\n${input.context}\n</context>` : input.task;
  let result: ChildResult;
  let cancelled: unknown;
  try {
    const outcome = await loop.run(task);
    result = { agentId: input.agentId, status: outcome.status, text: outcome.text, usage: loop.usage, turns: loop.turns };
  } catch (err) {
    if (isCancellation(err)) cancelled = err;
    result = {
      agentId: input.agentId,
      status: cancelled ? 'cancelled' : 'failed',
      text: '',
      error: { type: cancelled ? 'cancelled' : failureType(err), message: describeFailure(err) },
      usage: loop.usage,
      turns: loop.turns,
    };
  }
  status = result.status;
  // Report even when cancelled, so the parent keeps the partial usage.
  await CancellationScope.nonCancellable(async () => {
    try {
      await getExternalWorkflowHandle(input.parentWorkflowId).signal(childResultSignal, result);
    } catch {
      // The parent is gone (ended or terminated): nobody is waiting for this result.
    }
  });
  if (cancelled) throw cancelled;
  if (result.status === 'failed') {
    throw ApplicationFailure.create({ type: 'SubagentFailed', message: result.error?.message ?? 'failed', nonRetryable: true, details: [result] });
  }
  return result;
}
