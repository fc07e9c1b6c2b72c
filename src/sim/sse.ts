import type { ResponseBlock, SimMessage } from './reply';

/**
 * A complete message as the Messages API streams it: message_start, ping, then per block
 * content_block_start / content_block_delta* / content_block_stop, then message_delta (stop
 * reason, output tokens) and message_stop. Text and tool input arrive in several small deltas,
 * as they do from the real API, so clients' accumulation code is exercised.
 */
export function streamEvents(msg: SimMessage): Array<{ event: string; data: unknown }> {
  const events: Array<{ event: string; data: unknown }> = [];
  const push = (event: string, data: Record<string, unknown>) => events.push({ event, data: { type: event, ...data } });

  push('message_start', {
    message: { ...msg, content: [], stop_reason: null, stop_sequence: null, usage: { ...msg.usage, output_tokens: 1 } },
  });
  events.push({ event: 'ping', data: { type: 'ping' } });
  msg.content.forEach((block, index) => {
    push('content_block_start', { index, content_block: startOf(block) });
    for (const delta of deltasOf(block)) push('content_block_delta', { index, delta });
    push('content_block_stop', { index });
  });
  push('message_delta', {
    delta: { stop_reason: msg.stop_reason, stop_sequence: msg.stop_sequence },
    usage: { output_tokens: msg.usage.output_tokens },
  });
  push('message_stop', {});
  return events;
}

export function formatEvent(e: { event: string; data: unknown }): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

function startOf(block: ResponseBlock): ResponseBlock {
  if (block.type === 'text') return { type: 'text', text: '' };
  if (block.type === 'tool_use') return { ...block, input: {} };
  return block;
}

function deltasOf(block: ResponseBlock): Array<Record<string, unknown>> {
  if (block.type === 'text') return chunks(String(block.text), 24).map((text) => ({ type: 'text_delta', text }));
  if (block.type === 'tool_use') {
    return chunks(JSON.stringify(block.input), 24).map((partial_json) => ({ type: 'input_json_delta', partial_json }));
  }
  return [];
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
