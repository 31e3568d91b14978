/**
 * Test helpers for the text of model calls as an agent's listeners see it and as its transcript
 * keeps it.
 */
import type { Agent, Message } from '../../src/index.js';

/**
 * What a listener keeps that follows the rule of `llmStart` / `llmEnd`: the text since the last
 * `llmStart` is kept when `llmEnd` says `completed` or `interrupted`, and dropped on a new
 * `llmStart` or on `llmEnd` `failed`; and what it saw on the way.
 */
export interface Transcriber {
  /** The texts kept, one per model call that ended completed or interrupted. */
  kept: string[];
  /** Text dropped: streamed by an attempt that failed or started over. */
  dropped: string[];
  /** Every `llmStart` and `llmEnd`, in order, as `start 1` or `end completed`. */
  calls: string[];
  /** Text that came outside any attempt (there should be none). */
  stray: string[];
}

/** Starts following `agent`'s model calls; what it keeps fills the returned object. */
export function transcribe(agent: Agent): Transcriber {
  const seen: Transcriber = { kept: [], dropped: [], calls: [], stray: [] };
  let current: string | undefined;
  agent.on('llmStart', ({ attempt }) => {
    if (current) seen.dropped.push(current);
    current = '';
    seen.calls.push(`start ${attempt}`);
  });
  agent.on('text', ({ text }) => {
    if (current === undefined) seen.stray.push(text);
    else current += text;
  });
  agent.on('llmEnd', ({ status }) => {
    seen.calls.push(`end ${status}`);
    if (current !== undefined && status !== 'failed') seen.kept.push(current);
    else if (current) seen.dropped.push(current);
    current = undefined;
  });
  return seen;
}

/** The text of each assistant message of the transcript that has any. */
export function assistantTexts(messages: readonly Message[]): string[] {
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
    )
    .filter((text) => text.length > 0);
}

/** Resolves once `text` listeners have been told at least `chars` characters since the call. */
export function textSeen(agent: Agent, chars: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const stop = agent.on('text', ({ text }) => {
      seen += text.length;
      if (seen >= chars) {
        stop();
        resolve();
      }
    });
  });
}
