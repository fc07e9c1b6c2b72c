import type { ChatMessage, ContentBlock } from '../shared/messages-api';

/**
 * The parent's recent conversation as a plain transcript, for `fork_history`. A transcript (not
 * the raw messages) keeps the child's own conversation valid: the parent's tool_use ids mean
 * nothing to the child's model.
 */
export function transcript(messages: ChatMessage[], turns: 'all' | number, maxChars: number): string {
  // A turn is one assistant reply with the user message before it.
  const picked = turns === 'all' ? messages : messages.slice(Math.max(0, messages.length - 2 * turns));
  const text = picked.map((m) => `${m.role === 'user' ? 'USER' : 'ASSISTANT'}: ${contentText(m.content)}`).join('\n\n');
  // Keep the most recent part when it does not fit.
  return text.length <= maxChars ? text : `[earlier turns cut]\n${text.slice(text.length - maxChars)}`;
}

function contentText(content: string | ContentBlock[]): string {
  if (typeof content === 'string') return content;
  return content
    .map((b) => {
      if (b.type === 'text') return String(b.text);
      if (b.type === 'tool_use') return `[called ${String(b.name)} ${JSON.stringify(b.input)}]`;
      if (b.type === 'tool_result') return `[tool result${b.is_error ? ' (error)' : ''}: ${String(b.content)}]`;
      return `[${b.type}]`;
    })
    .join('\n');
}
