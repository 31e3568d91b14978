/**
 * The rules of DESIGN section 4, checked after every step of a path and at its end. Each check
 * returns sentences describing what broke (an empty list when nothing did), so a failing path
 * reads as a list of broken promises.
 */
import {
  type AgentAction,
  type AgentConfig,
  type AgentEvent,
  findTranscriptViolations,
  type Message,
  type UsageTotals,
} from '../../src/index.js';
import { describeStateValue, SUMMARY_HEADING, topStateOf } from '../../src/machine/index.js';
import type { RunView, StepResult } from './pathRun.js';

/** Where a model request streams, after any compaction it needed. */
const STREAMING = 'CallingLlm.Streaming';

/** The states of a compaction, before a request (`CallingLlm`) or asked for between turns. */
const COMPACTION_STATES: ReadonlySet<string> = new Set([
  'CallingLlm.CheckingCompaction',
  'CallingLlm.Compacting',
  'WaitingForUserInput.CheckingCompaction',
  'WaitingForUserInput.Compacting',
]);

// DESIGN section 4, "Bounded": Loom's numbers.
const BASE_DELAY_MS = 200;
const FACTOR = 2;
const CAP_MS = 5000;
const JITTER = { low: 0.5, high: 1.5 };

/**
 * The ledger of one path: it remembers what the rules need across steps (the user messages
 * sent, the input reported as discarded or dropped, the messages a compaction summarised) and
 * checks each step.
 *
 * @example
 * const ledger = new SectionFourLedger(config);
 * problems.push(...ledger.afterStep(before, event, result));
 * problems.push(...ledger.atEnd(run.view()));
 */
export class SectionFourLedger {
  readonly #maxRetries: number;
  readonly #sentInput: Message[] = [];
  readonly #discarded: Message[] = [];
  /** Messages a compaction replaced with its summary: they reached the model before it. */
  readonly #summarised: Message[] = [];
  /** The text the model streamed in the current attempt of its call, as the events said it. */
  #attemptText = '';

  constructor(config: AgentConfig) {
    this.#maxRetries = config.maxRetries ?? 3;
  }

  afterStep(before: RunView, event: AgentEvent, after: StepResult): string[] {
    const problems: string[] = [];
    if (after.status === 'error') problems.push('the machine failed: errors must become state');
    if (event.type === 'UserInput') this.#sentInput.push(event.message);
    problems.push(...transcriptProblems(before, event, after, this.#attemptText));
    problems.push(...this.#oneAttemptsText(before, event, after));
    problems.push(...this.#nothingLost(before, after));
    problems.push(...this.#bounded(before, event, after));
    problems.push(...this.#compaction(before, event, after));
    const unserialisable = notPlainJson(after.context, 'context');
    if (unserialisable !== null) problems.push(unserialisable);
    problems.push(...settlingProblems(after));
    problems.push(...subagentUsageProblems(before, event, after));
    problems.push(...nestedWaitProblems(after));
    if (event.type === 'LlmTextDelta' || event.type === 'LlmToolCallDelta') {
      // Cheap per event: a delta never copies the transcript or the queue.
      if (after.context.messages !== before.context.messages)
        problems.push('a delta copied the messages');
      if (after.context.messages.length !== before.context.messages.length)
        problems.push('a delta changed the transcript');
      if (after.context.queue !== before.context.queue) problems.push('a delta copied the queue');
    }
    return problems;
  }

  /**
   * The end of a path: every user message sent reached the transcript (and is there still, or
   * was summarised by a compaction), or was reported.
   */
  atEnd(view: RunView): string[] {
    const problems: string[] = [];
    // A prompt the userPromptSubmit hook added a note to is in the transcript as text blocks.
    const delivered = new Set<string>(
      [
        ...view.context.messages,
        ...view.context.queue,
        ...this.#discarded,
        ...this.#summarised,
      ].flatMap(textsOf),
    );
    for (const message of this.#sentInput) {
      if (!textsOf(message).every((text) => delivered.has(text))) {
        problems.push(`user input ${JSON.stringify(message.content)} was lost`);
      }
    }
    if (topStateOf(view.state) !== 'ExecutingTools') {
      for (const violation of findTranscriptViolations(view.context.messages)) {
        problems.push(`the final transcript is invalid: ${violation}`);
      }
    }
    return problems;
  }

  /**
   * What the chart holds as streamed is what the current attempt streamed: an attempt starts
   * afresh (`LlmStarted`, or a request sent again), so no text is shown twice.
   */
  #oneAttemptsText(before: RunView, event: AgentEvent, after: StepResult): string[] {
    // What a compaction's summary call streams is not shown, and not the request's attempt.
    if (describeStateValue(before.state) === STREAMING) {
      if (event.type === 'LlmStarted') this.#attemptText = '';
      if (event.type === 'LlmTextDelta') this.#attemptText += event.content;
    }
    if (after.actions.some((action) => action.type === 'SendLlmRequest')) this.#attemptText = '';
    if (
      describeStateValue(after.state) !== STREAMING ||
      after.context.streamingText === this.#attemptText
    )
      return [];
    return [
      `the chart holds ${JSON.stringify(after.context.streamingText)} as streamed, but this attempt streamed ${JSON.stringify(this.#attemptText)}`,
    ];
  }

  #nothingLost(before: RunView, after: StepResult): string[] {
    const problems: string[] = [];
    for (const action of after.actions) {
      if (action.type === 'PromptDropped') {
        // Handed back to the caller (blocked by the userPromptSubmit hook, or withdrawn by an
        // interrupt): the prompt held at the head of the queue, which leaves it unsent.
        this.#discarded.push(action.prompt);
        if (before.context.queue[0]?.content !== action.prompt.content) {
          problems.push('PromptDropped must hand back the prompt held at the head of the queue');
        }
        if (after.context.queue.some((message) => message.content === action.prompt.content)) {
          problems.push('a dropped prompt is still queued');
        }
      }
      if (action.type === 'Shutdown') {
        this.#discarded.push(...action.discardedInput);
        if (!sameContents(action.discardedInput, before.context.queue)) {
          problems.push('Shutdown must report exactly the queued input as discarded');
        }
      }
      if (action.type === 'WaitForInput' && after.context.queue.length > 0) {
        problems.push('WaitForInput while input is queued');
      }
    }
    // A turn that ends for any reason but shutdown starts the oldest queued input at once — once
    // the calls an interrupt aborted are answered, so the next request carries their results —
    // or holds it at the head of the queue for the userPromptSubmit hook; input typed during a
    // compaction asked for between turns waits for it.
    const settling = after.context.toolRuns.some((run) => run.status === 'cancelling');
    const where = describeStateValue(after.state);
    if (
      topStateOf(after.state) === 'WaitingForUserInput' &&
      after.context.queue.length > 0 &&
      !settling &&
      where !== 'WaitingForUserInput.CheckingPrompt' &&
      !COMPACTION_STATES.has(where)
    ) {
      problems.push('idle with input still queued');
    }
    return problems;
  }

  #bounded(before: RunView, event: AgentEvent, after: StepResult): string[] {
    const problems: string[] = [];
    if (after.context.retries >= this.#maxRetries) {
      problems.push(
        `retries reached ${after.context.retries} of at most ${this.#maxRetries} attempts`,
      );
    }
    const error = event.type === 'LlmError' ? event.error : undefined;
    // The stop hook has a turn go on at most once: a turn it could keep going is unbounded.
    if (
      after.context.turn.stopHookContinued &&
      after.actions.some((action) => action.type === 'RunStopHook')
    ) {
      problems.push('the stop hook was asked again in a turn it already had go on');
    }
    for (const action of after.actions) {
      if (action.type !== 'ScheduleRetry') continue;
      if (action.attempt > this.#maxRetries) {
        problems.push(`ScheduleRetry for attempt ${action.attempt} of ${this.#maxRetries}`);
      }
      if (error?.kind === 'auth' || error?.kind === 'invalid_request') {
        problems.push(`a non-retryable ${error.kind} error was retried`);
      }
      if (event.type === 'Resume') {
        // A restored backoff waits what was left of it, never more than it was.
        if (action.delayMs > before.context.retryDelayMs) {
          problems.push(
            `a resumed backoff of ${action.delayMs} ms is longer than the ${before.context.retryDelayMs} ms it was`,
          );
        }
        continue;
      }
      problems.push(...backoffProblems(action, error?.retryAfterMs));
    }
    // A failed summary call is the compaction's failure, not the request's (see #compaction).
    if (error !== undefined && after.accepted && describeStateValue(before.state) === STREAMING) {
      const retried = after.actions.some((action) => action.type === 'ScheduleRetry');
      const retryable = error.kind !== 'auth' && error.kind !== 'invalid_request';
      // `maxRetries` counts attempts: with 2, the first failure retries and the second gives up.
      const attemptsLeft = before.context.retries + 1 < this.#maxRetries;
      if (retryable && attemptsLeft && !retried) {
        problems.push(`a retryable ${error.kind} error with attempts left was not retried`);
      }
      if (!retried) {
        // Giving up says why, with the error's own message.
        const shown = after.actions.some(
          (action) => action.type === 'DisplayError' && action.message.includes(error.message),
        );
        if (!shown)
          problems.push(
            `gave up on ${error.kind} without a DisplayError saying "${error.message}"`,
          );
      }
    }
    return problems;
  }

  /**
   * Compaction keeps the transcript whole: it starts only when there is something older than
   * the latest exchange; the summary, as the first message, replaces exactly the older part, and
   * the messages after the cut stay word for word (an assistant message first, so no
   * tool_result is kept without its tool_use); a compaction that does not happen (vetoed,
   * failed, interrupted) leaves the transcript as it was; once a compaction before a request
   * ends, done or not, the request goes out (unless an interrupt or a shutdown ended the turn),
   * so none is compacted twice (bounded); a failed summary call is not retried, and the user is
   * told why.
   */
  #compaction(before: RunView, event: AgentEvent, after: StepResult): string[] {
    const problems: string[] = [];
    const where = describeStateValue(before.state);
    const old = before.context.messages;
    const now = after.context.messages;
    let compacted = false;
    for (const action of after.actions) {
      if (action.type === 'SendCompactionRequest') {
        if (!describeStateValue(after.state).endsWith('.Compacting')) {
          problems.push(`SendCompactionRequest in ${describeStateValue(after.state)}`);
        }
        if (action.request.messages.length > old.length + 1) {
          problems.push('the summary request carries more than the transcript and its prompt');
        }
      }
      if (
        (action.type === 'Compacted' || action.type === 'CompactionSkipped') &&
        action.trigger === 'auto' &&
        !endsEarly(event) &&
        (describeStateValue(after.state) !== STREAMING ||
          !after.actions.some((sent) => sent.type === 'SendLlmRequest'))
      ) {
        problems.push(
          `a compaction before a request ended in ${describeStateValue(after.state)}, and the request did not go out`,
        );
      }
      if (action.type !== 'Compacted') continue;
      compacted = true;
      this.#summarised.push(...old.slice(0, action.summarised));
      const [summary, ...rest] = now;
      const kept = rest.slice(0, action.kept);
      if (action.summarised + action.kept !== old.length) {
        problems.push(
          `a compaction of ${old.length} messages summarised ${action.summarised} and kept ${action.kept}`,
        );
      }
      const summaryText = summary === undefined ? [] : textsOf(summary);
      if (
        summary?.role !== 'user' ||
        !summaryText[0]?.startsWith(SUMMARY_HEADING) ||
        !summaryText[0].includes(action.summary)
      ) {
        problems.push('a compacted transcript does not start with the summary');
      }
      if (action.summarised < 1 || kept[0]?.role !== 'assistant') {
        problems.push('a compaction cut the transcript anywhere but before an assistant message');
      }
      if (!kept.every((message, index) => message === old[action.summarised + index])) {
        problems.push('a compaction changed the messages it kept');
      }
    }
    // The latest exchange always stays, so there is something to summarise only once an
    // assistant message follows the first two messages.
    const starts =
      COMPACTION_STATES.has(describeStateValue(after.state)) && !COMPACTION_STATES.has(where);
    if (starts && !now.some((message, index) => index >= 2 && message.role === 'assistant')) {
      problems.push(
        'a compaction started with nothing older than the latest exchange to summarise',
      );
    }
    if (COMPACTION_STATES.has(where) && !compacted && !old.every((m, i) => now[i] === m)) {
      problems.push(`${event.type} in ${where} changed the transcript, yet nothing was compacted`);
    }
    if (event.type === 'LlmError' && where.endsWith('.Compacting') && after.accepted) {
      if (after.actions.some((action) => action.type === 'ScheduleRetry')) {
        problems.push('a failed summary call was retried');
      }
      const told = after.actions.some(
        (action) => action.type === 'DisplayError' && action.message.includes(event.error.message),
      );
      const skipped = after.actions.some((action) => action.type === 'CompactionSkipped');
      if (!told || !skipped) {
        problems.push(
          `a failed summary call ended without CompactionSkipped and a DisplayError saying "${event.error.message}"`,
        );
      }
    }
    return problems;
  }
}

/** The event ends the turn early: an interrupt or a shutdown. */
function endsEarly(event: AgentEvent): boolean {
  return event.type === 'Interrupt' || event.type === 'ShutdownRequested';
}

function backoffProblems(
  action: Extract<AgentAction, { type: 'ScheduleRetry' }>,
  retryAfterMs: number | undefined,
): string[] {
  // `attempt` is the attempt about to be made; the first retry is attempt 2.
  const capped = Math.min(CAP_MS, BASE_DELAY_MS * FACTOR ** Math.max(0, action.attempt - 2));
  const low = Math.floor(capped * JITTER.low);
  const high = Math.max(Math.ceil(capped * JITTER.high), retryAfterMs ?? 0);
  const problems: string[] = [];
  if (action.delayMs < low || action.delayMs > high) {
    problems.push(
      `retry delay ${action.delayMs} ms is outside [${low}, ${high}] for attempt ${action.attempt}`,
    );
  }
  if (retryAfterMs !== undefined && action.delayMs < retryAfterMs) {
    problems.push(`retry delay ${action.delayMs} ms ignores Retry-After ${retryAfterMs} ms`);
  }
  return problems;
}

function transcriptProblems(
  before: RunView,
  event: AgentEvent,
  after: StepResult,
  attemptText: string,
): string[] {
  const problems: string[] = [];
  for (const action of after.actions) {
    if (action.type !== 'SendLlmRequest' && action.type !== 'SendCompactionRequest') continue;
    for (const violation of findTranscriptViolations(action.request.messages)) {
      problems.push(`${action.type} with an invalid transcript: ${violation}`);
    }
  }
  const violations = findTranscriptViolations(after.context.messages);
  const settling = after.context.toolRuns.some((run) => run.status === 'cancelling');
  if (topStateOf(after.state) === 'ExecutingTools' || settling) {
    // While tools run, or an interrupt waits to learn how aborted calls ended, the calls of the
    // last response are the only ones still unanswered.
    for (const violation of violations) {
      if (!violation.endsWith('has no tool_result yet'))
        problems.push(`invalid transcript: ${violation}`);
    }
  } else {
    for (const violation of violations)
      problems.push(
        `invalid transcript at rest in ${describeStateValue(after.state)}: ${violation}`,
      );
  }
  const partial = attemptText;
  if (
    endsEarly(event) &&
    describeStateValue(before.state) === STREAMING &&
    partial.trim().length > 0
  ) {
    // An interrupted stream keeps its partial text: what the attempt streamed, once.
    const kept = after.context.messages
      .slice(before.context.messages.length)
      .some(
        (message) =>
          message.role === 'assistant' &&
          Array.isArray(message.content) &&
          message.content.some((block) => block.type === 'text' && block.text === partial),
      );
    if (!kept) problems.push(`${event.type} dropped the streamed text ${JSON.stringify(partial)}`);
  }
  return problems;
}

/**
 * What a subagent used is not lost: the answer of a task call, running or settling after an
 * interrupt, adds its `usage` to the session's (and, in its turn, the turn's) sums, without counting the subagent's model calls as the agent's own
 * (`maxTurns` reads those).
 */
function subagentUsageProblems(before: RunView, event: AgentEvent, after: StepResult): string[] {
  if (event.type !== 'ToolCompleted' || event.usage === undefined || !after.accepted) return [];
  const used = event.usage;
  const problems: string[] = [];
  // A call settling after an interrupt may let the next turn start, with a usage of its own.
  const sums: Array<readonly ['session' | 'turn', readonly [UsageTotals, UsageTotals]]> = [
    ['session', [before.context.usage, after.context.usage]],
  ];
  if (topStateOf(before.state) === 'ExecutingTools') {
    sums.push(['turn', [before.context.turn.usage, after.context.turn.usage]]);
  }
  for (const [what, [was, is]] of sums) {
    if (is.calls !== was.calls) problems.push(`a subagent's answer counted a ${what} model call`);
    if (
      is.input_tokens !== was.input_tokens + used.input_tokens ||
      is.output_tokens !== was.output_tokens + used.output_tokens
    ) {
      problems.push(`a subagent's answer did not add what it used to the ${what}'s usage`);
    }
  }
  return problems;
}

/**
 * The nested state and the context agree: calls an interrupt aborted are being waited for exactly
 * while the chart is in `SettlingCancelledCalls` (a stored agent's nested state is read back from
 * the context).
 */
function settlingProblems(after: StepResult): string[] {
  const settling = after.context.toolRuns.some((run) => run.status === 'cancelling');
  const inSettling =
    describeStateValue(after.state) === 'WaitingForUserInput.SettlingCancelledCalls';
  if (settling === inSettling) return [];
  return [
    settling
      ? `calls are waited for in ${describeStateValue(after.state)}, not in SettlingCancelledCalls`
      : 'SettlingCancelledCalls with no call left to wait for',
  ];
}

/**
 * The nested waits and the context agree, as a stored agent's nested state is read back from
 * the context: `CheckingPrompt` holds a prompt at the head of the queue, and
 * `ProcessingLlmResponse` is only ever rested in while the stop hook runs (`Deciding` routes a
 * response at once).
 */
function nestedWaitProblems(after: StepResult): string[] {
  const where = describeStateValue(after.state);
  const problems = compactionWaitProblems(after);
  if (problems.length > 0) return problems;
  if (where === 'WaitingForUserInput.CheckingPrompt' && after.context.queue.length === 0) {
    return ['CheckingPrompt with no prompt held in the queue'];
  }
  if (
    topStateOf(after.state) === 'ProcessingLlmResponse' &&
    where !== 'ProcessingLlmResponse.CheckingStop'
  ) {
    return [`rests in ${where}, which routes a response at once`];
  }
  return [];
}

/**
 * A compaction is underway exactly in the states of one, as a stored agent's nested state is
 * read back from it: `CheckingCompaction` until the `preCompact` hook answers, `Compacting`
 * after; one before a request in `CallingLlm`, one a `Compact` event asked for in
 * `WaitingForUserInput`. `CallingLlm.Sizing` is never rested in.
 */
function compactionWaitProblems(after: StepResult): string[] {
  const where = describeStateValue(after.state);
  const underway = after.context.window.compacting;
  if (where === 'CallingLlm.Sizing')
    return ['rests in CallingLlm.Sizing, which sizes a request at once'];
  if (!COMPACTION_STATES.has(where)) {
    return underway === null ? [] : [`a compaction is underway in ${where}`];
  }
  const checked = where.endsWith('.Compacting');
  const trigger = topStateOf(after.state) === 'CallingLlm' ? 'auto' : 'manual';
  if (underway?.checked !== checked || underway.trigger !== trigger) {
    return [`${where} with ${JSON.stringify(underway)} underway`];
  }
  return [];
}

/** The text of a message: its content, or the text of each of its text blocks. */
function textsOf(message: Message): string[] {
  if (typeof message.content === 'string') return [message.content];
  return message.content.flatMap((block) =>
    block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
  );
}

function sameContents(a: readonly Message[], b: readonly Message[]): boolean {
  return (
    a.length === b.length && a.every((message, index) => message.content === b[index]?.content)
  );
}

// Snapshots are immutable and share everything that did not change, so an object found to be
// plain JSON once stays so: remembering it makes the check cost what is new at each step.
const plainJson = new WeakSet<object>();

/**
 * Where `value` stops being plain JSON (a class instance, a function, a symbol, a non-finite
 * number, a cycle), or `null`. `undefined` object members are allowed: JSON leaves them out and
 * reading them back gives `undefined` again.
 */
export function notPlainJson(
  value: unknown,
  path: string,
  seen = new Set<object>(),
): string | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number')
    return Number.isFinite(value) ? null : `${path} is ${value}, not JSON`;
  if (typeof value !== 'object') return `${path} is a ${typeof value}, not JSON`;
  if (plainJson.has(value)) return null;
  if (seen.has(value)) return `${path} is a cycle, not JSON`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const problem = notPlainJson(value[index], `${path}[${index}]`, seen);
        if (problem !== null) return problem;
      }
      plainJson.add(value);
      return null;
    }
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      return `${path} is an instance of ${value.constructor.name}, not plain JSON`;
    }
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined) continue;
      const problem = notPlainJson(member, `${path}.${key}`, seen);
      if (problem !== null) return problem;
    }
    return null;
  } finally {
    seen.delete(value);
  }
}
