/**
 * A small model of a plausible caller of `AgentCore` (pure mode), for the property tests.
 *
 * It looks at `core.state` and `core.context` (tool runs, their statuses and ids, the queue) and
 * picks an event that is meaningful there most of the time — the model streams, completes with
 * tool calls or fails, tools finish in any order, people approve or deny, the caller's hooks
 * answer (on tools, and on a turn: the prompt it starts with, the response that would end it,
 * the compaction about to start), the model summarises the transcript, users type while a turn
 * runs or ask for a compaction between turns — and sometimes an event the state does not take, or a malformed
 * object. The choices are drawn from fast-check's `gen`, so failures shrink and replay.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import {
  type AgentAction,
  type AgentConfig,
  type AgentContext,
  AgentCore,
  type AgentDiagnostic,
  type AgentDiagnosticCode,
  type AgentEvent,
  type AgentStateName,
  type AgentStateValue,
  type ContentBlock,
  describeStateValue,
  type HookSwitches,
  type LlmError,
  type LlmErrorKind,
  type LlmResponse,
  type PermissionConfig,
  PERMISSION_MODES,
  type PermissionMode,
  type StopReason,
  type ToolCall,
  type ToolSpec,
} from '../../../src/index.js';

/** The actions of one type, narrowed (the property tests read it from here). */
export { actionsOf } from '../../support/events.js';

// ─── configurations ──────────────────────────────────────────────────────────────────────────

const PERMISSION_CHOICES: ReadonlyArray<PermissionConfig | undefined> = [
  undefined,
  { mode: 'default' },
  { mode: 'plan' },
  { mode: 'acceptEdits', deny: ['bash'] },
  { mode: 'bypassPermissions', deny: ['write_file'] },
  { mode: 'default', allow: ['edit_file'] },
];

const TOOL_SPEC_CHOICES: ReadonlyArray<ToolSpec[] | undefined> = [
  undefined,
  [
    { name: 'read_file', mutating: false, inputSchema: { type: 'object' } },
    { name: 'deploy', mutating: true, description: 'Deploy the site' },
  ],
];

/** The hooks on a turn: none (most often), `userPromptSubmit`, `stop`, or both. */
const TURN_HOOK_CHOICES: ReadonlyArray<HookSwitches | undefined> = [
  undefined,
  undefined,
  { userPromptSubmit: true },
  { stop: true },
  { userPromptSubmit: true, stop: true },
];

/**
 * A context window small enough that a reply reporting a few thousand tokens of usage has the
 * next request compact first.
 */
export const SMALL_WINDOW = { contextWindow: 4000, threshold: 0.4 };

/**
 * Compaction: the defaults (no scenario comes near a 200,000-token window, so only a `Compact`
 * event compacts), off, or a window so small that a reply reporting a few thousand tokens of
 * usage has the next request compact first, keeping a tenth of the window or only the latest
 * exchange.
 */
const COMPACTION_CHOICES: ReadonlyArray<AgentConfig['compaction']> = [
  undefined,
  undefined,
  false,
  SMALL_WINDOW,
  SMALL_WINDOW,
  { ...SMALL_WINDOW, keepRecentTokens: 0, instructions: 'Keep file paths.' },
];

/**
 * Configurations with and without permissions, with 1 to 4 attempts per model call, with the
 * default backoff or a custom one, with the caller's hooks on tools and on turns, with
 * compaction settings that do and do not compact in a scenario, and now and then a `maxTurns`
 * low enough for a turn to reach it (where the `stop` hook is not asked).
 */
export const configArb: fc.Arbitrary<AgentConfig> = fc
  .record({
    maxRetries: fc.integer({ min: 1, max: 4 }),
    permissions: fc.constantFrom(...PERMISSION_CHOICES),
    tools: fc.constantFrom(...TOOL_SPEC_CHOICES),
    retry: fc.option(
      fc.record({
        baseDelayMs: fc.integer({ min: 1, max: 500 }),
        factor: fc.constantFrom(1.5, 2, 3),
        maxDelayMs: fc.integer({ min: 50, max: 8000 }),
        seed: fc.integer(),
      }),
      { nil: undefined },
    ),
    system: fc.option(fc.constant('You are a careful coding agent.'), { nil: undefined }),
    askUser: fc.boolean(),
    hooks: fc.constantFrom(
      undefined,
      { preToolUse: true },
      { postToolUse: true },
      { preToolUse: true, postToolUse: true },
    ),
    turnHooks: fc.constantFrom(...TURN_HOOK_CHOICES),
    compaction: fc.constantFrom(...COMPACTION_CHOICES),
    preCompactHook: fc.boolean(),
    agents: fc.boolean(),
    maxTurns: fc.oneof(
      { weight: 5, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
    ),
  })
  .map((fields) => {
    // Only the keys that are set, so the config reads like one a person would write.
    const config: AgentConfig = { maxRetries: fields.maxRetries };
    if (fields.permissions !== undefined) config.permissions = fields.permissions;
    if (fields.tools !== undefined) config.tools = fields.tools;
    if (fields.retry !== undefined) config.retry = fields.retry;
    if (fields.system !== undefined) config.system = fields.system;
    if (fields.askUser) config.askUser = true;
    const hooks: HookSwitches = { ...fields.hooks, ...fields.turnHooks };
    if (fields.preCompactHook) hooks.preCompact = true;
    if (Object.keys(hooks).length > 0) config.hooks = hooks;
    if (fields.compaction !== undefined) config.compaction = fields.compaction;
    if (fields.maxTurns !== undefined) config.maxTurns = fields.maxTurns;
    if (fields.agents) config.agents = AGENTS;
    return config;
  });

/** The subagents a config may have: a `task` call hands a sub-task to `reviewer`. */
export const AGENTS: NonNullable<AgentConfig['agents']> = {
  reviewer: { description: 'Reviews a change for bugs; changes nothing' },
};

/** The number of events in a scenario (shrinks toward short ones). */
export const lengthArb: fc.Arbitrary<number> = fc.integer({ min: 0, max: 60 });

// ─── choosing ────────────────────────────────────────────────────────────────────────────────

/** Random choices drawn from fast-check's `gen` (seeded by fast-check, shrinkable). */
export class Chooser {
  readonly #g: fc.GeneratorValue;

  constructor(g: fc.GeneratorValue) {
    this.#g = g;
  }

  /** A whole number in [0, max]. */
  int(max: number): number {
    return this.#g(fc.nat, max);
  }

  /** True about one time in `oneIn`. */
  chance(oneIn: number): boolean {
    return this.int(oneIn - 1) === 0;
  }

  oneOf<T>(items: readonly T[]): T {
    const item = items[this.int(items.length - 1)];
    if (item === undefined) throw new Error('oneOf needs at least one item');
    return item;
  }

  /** One of the options, in proportion to its weight (options of weight 0 are never picked). */
  weighted<T>(options: ReadonlyArray<readonly [number, T]>): T {
    const total = options.reduce((sum, [weight]) => sum + weight, 0);
    let ticket = this.int(total - 1);
    for (const [weight, value] of options) {
      if (ticket < weight) return value;
      ticket -= weight;
    }
    throw new Error('weighted needs a positive total weight');
  }
}

// ─── events ──────────────────────────────────────────────────────────────────────────────────

/** An event to feed, and whether the model built it malformed on purpose. */
export type Planned = { kind: 'valid'; event: AgentEvent } | { kind: 'malformed'; event: unknown };

/** How often the model strays from the plausible path. */
export interface Profile {
  /** Weight of well-formed events the current state may not take (late, early, unknown ids). */
  noise: number;
  /** Weight of malformed objects. */
  malformed: number;
  /** Weight of `LlmError` in `CallingLlm`. */
  errors: number;
  /** Weight of `ShutdownRequested`. */
  shutdown: number;
  /**
   * Weight of `Interrupt` in each state a turn runs in, in the waits for the hooks on a turn
   * (`CheckingPrompt` before it starts, `CheckingStop` before it ends), and in the states of a
   * compaction (`CheckingCompaction`, `Compacting`, before a request or between turns).
   */
  interrupts: Record<
    | 'CallingLlm'
    | 'ExecutingTools'
    | 'PostToolsHook'
    | 'Error'
    | 'CheckingPrompt'
    | 'CheckingStop'
    | 'Compaction',
    number
  >;
  /**
   * One tool call in this many reuses an id, of an earlier call in the same response or of an
   * earlier response (what a broken proxy may send); 0 for never.
   */
  reusedIds?: number;
}

const EVERYWHERE = (weight: number): Profile['interrupts'] => ({
  CallingLlm: weight,
  ExecutingTools: weight,
  PostToolsHook: weight,
  Error: weight,
  CheckingPrompt: weight,
  CheckingStop: weight,
  Compaction: weight,
});

export const PLAUSIBLE: Profile = {
  noise: 6,
  malformed: 3,
  errors: 12,
  shutdown: 1,
  interrupts: EVERYWHERE(4),
};
export const NO_SHUTDOWN: Profile = { ...PLAUSIBLE, shutdown: 0 };
/** Interrupts in every state a turn runs in, often in those a turn reaches late and leaves soon. */
export const INTERRUPTING: Profile = {
  ...NO_SHUTDOWN,
  interrupts: {
    CallingLlm: 4,
    ExecutingTools: 6,
    PostToolsHook: 60,
    Error: 30,
    CheckingPrompt: 10,
    CheckingStop: 30,
    Compaction: 60,
  },
};
export const NOISY: Profile = { ...PLAUSIBLE, noise: 30, malformed: 20 };
/** A model behind a proxy that reuses tool_use ids. */
export const REUSING_IDS: Profile = { ...NO_SHUTDOWN, reusedIds: 3 };
export const FLAKY_MODEL: Profile = {
  ...NO_SHUTDOWN,
  noise: 3,
  malformed: 1,
  errors: 45,
  interrupts: EVERYWHERE(3),
};

const TOOL_NAMES = [
  'read_file',
  'list_files',
  'edit_file',
  'write_file',
  'bash',
  'deploy',
  'ask_user',
];

/** The built-in tool that hands a sub-task to a subagent (see `AGENTS`). */
const TASK_TOOL = 'task';

/** A `task` call's input: a sub-task for `reviewer`, sometimes for no such agent. */
function taskInput(choose: Chooser): unknown {
  if (choose.chance(6)) return { agent: 'nobody', prompt: 'Review src/file0.ts.' };
  const task = { agent: 'reviewer', prompt: 'Review src/file0.ts for races.' };
  return choose.chance(2) ? { ...task, description: 'review file0' } : task;
}

/** An `ask_user` call's input: one or two questions, sometimes malformed (no header). */
function questionsInput(choose: Chooser): unknown {
  if (choose.chance(6)) return { questions: [{ question: 'Which one?' }] };
  const pick = {
    question: 'Which database?',
    header: 'Database',
    options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }],
  };
  const free = { question: 'What should the service be called?', header: 'Name' };
  return { questions: choose.chance(2) ? [pick, free] : [free] };
}
const RETRYABLE_KINDS: LlmErrorKind[] = [
  'rate_limit',
  'overloaded',
  'server',
  'network',
  'timeout',
  'unknown',
];
const NON_RETRYABLE_KINDS: LlmErrorKind[] = ['auth', 'invalid_request'];
const MODES: readonly PermissionMode[] = PERMISSION_MODES;
const TEXT_PIECES = ['Hel', 'lo', ' world', 'Let me look', ' at the file.', '```ts\n', 'Done.'];

/** What the caller remembers across events: fresh ids, and ids of calls that are over. */
export class World {
  #nextCall = 1;
  #nextInput = 1;
  readonly pastCallIds: string[] = [];

  newCallId(): string {
    const id = `toolu_${String(this.#nextCall++).padStart(3, '0')}`;
    this.pastCallIds.push(id);
    return id;
  }

  /** User messages carry a unique text so a test can find each one in the transcript. */
  newInputText(): string {
    return `user input #${this.#nextInput++}`;
  }
}

/** Picks the next event for the agent as it stands. */
export function nextEvent(
  choose: Chooser,
  core: AgentCore,
  world: World,
  profile: Profile,
): Planned {
  const { context } = core;
  const running = context.toolRuns.filter((run) => run.status === 'running');
  const cancelling = context.toolRuns.filter((run) => run.status === 'cancelling');
  const awaiting = context.toolRuns.filter((run) => run.status === 'awaitingApproval');
  const asking = context.toolRuns.filter((run) => run.status === 'awaitingAnswer');
  const hooked = context.toolRuns.filter(
    (run) => run.status === 'preHook' || run.status === 'postHook',
  );
  type Pick = () => Planned;
  const common: Array<readonly [number, Pick]> = [
    [profile.noise, () => valid(noiseEvent(choose, world))],
    [profile.malformed, () => ({ kind: 'malformed', event: malformedEvent(choose, core) })],
    [profile.shutdown, () => valid({ type: 'ShutdownRequested' })],
  ];
  const userInput: Pick = () =>
    valid({ type: 'UserInput', message: { role: 'user', content: world.newInputText() } });
  const setMode: Pick = () => valid({ type: 'SetPermissionMode', mode: choose.oneOf(MODES) });
  // The tools listed again as configured (an MCP server that reconnected): the oracles read the
  // configured specs, so a list that changed them would change what they expect.
  const setTools: Pick = () => valid({ type: 'SetTools', tools: core.config.tools ?? [] });
  const interrupt: Pick = () => valid({ type: 'Interrupt' });
  const resume: Pick = () => valid({ type: 'Resume' });

  const options: Array<readonly [number, Pick]> = (() => {
    // A compaction, before a request or asked for between turns: the preCompact hook answers, or
    // the model summarises; the user types on, interrupts, or the process restarts meanwhile.
    const compaction = compactionStage(core);
    if (compaction !== null) {
      return [
        ...(compaction === 'checking'
          ? [[50, () => valid(preCompactDecision(choose))] as const]
          : summaryCallEvents(choose)),
        [6, userInput],
        [profile.interrupts.Compaction, interrupt],
        [3, resume],
        [2, setMode],
        [1, setTools],
        ...common,
      ];
    }
    switch (core.state) {
      case 'WaitingForUserInput':
        if (isCheckingPrompt(core)) {
          // The userPromptSubmit hook on the prompt at the head of the queue answers (every kind
          // of answer), or the user types on, interrupts, or the process restarts meanwhile.
          return [
            [50, () => valid(promptDecision(choose))],
            [8, userInput],
            [profile.interrupts.CheckingPrompt, interrupt],
            [3, resume],
            [2, setMode],
            [1, setTools],
            ...common,
          ];
        }
        return [
          [60, userInput],
          [4, setMode],
          [2, setTools],
          // A compaction asked for (taken only in Ready, with nothing in flight), mostly once the
          // conversation has grown.
          [
            cancelling.length > 0 ? 1 : context.messages.length >= 4 ? 30 : 4,
            () =>
              valid(
                choose.chance(2)
                  ? { type: 'Compact' }
                  : { type: 'Compact', instructions: 'Keep the open questions.' },
              ),
          ],
          // After an interrupt: aborted calls report how they ended, or the grace period ends.
          [
            cancelling.length > 0 ? 40 : 0,
            () => valid(toolCompleted(choose, choose.oneOf(cancelling))),
          ],
          [cancelling.length > 0 ? 15 : 0, () => valid({ type: 'ToolGraceExpired' })],
          // The process restarted while the aborted calls were settling.
          [cancelling.length > 0 ? 5 : 0, resume],
          ...common,
        ];
      case 'CallingLlm':
        return [
          // An attempt starting (again): what it streamed before is dropped.
          [4, () => valid({ type: 'LlmStarted' })],
          [25, () => valid({ type: 'LlmTextDelta', content: choose.oneOf(TEXT_PIECES) })],
          [8, () => valid(toolCallDelta(choose, world))],
          [
            25,
            () =>
              valid({
                type: 'LlmCompleted',
                response: llmResponse(choose, world, profile.reusedIds),
              }),
          ],
          [profile.errors, () => valid({ type: 'LlmError', error: llmError(choose) })],
          [6, userInput],
          [profile.interrupts.CallingLlm, interrupt],
          [2, setMode],
          [1, setTools],
          ...common,
        ];
      case 'ExecutingTools':
        return [
          [running.length > 0 ? 45 : 0, () => valid(toolCompleted(choose, choose.oneOf(running)))],
          [
            running.length > 0 ? 6 : 0,
            () =>
              valid({
                type: 'ToolProgress',
                callId: choose.oneOf(running).call.id,
                progress: { percent: choose.int(100) },
              }),
          ],
          [awaiting.length > 0 ? 30 : 0, () => valid(approval(choose, choose.oneOf(awaiting)))],
          [asking.length > 0 ? 30 : 0, () => valid(userAnswer(choose, choose.oneOf(asking)))],
          [hooked.length > 0 ? 40 : 0, () => valid(hookAnswer(choose, choose.oneOf(hooked)))],
          [4, setMode],
          [2, setTools],
          [5, userInput],
          [profile.interrupts.ExecutingTools, interrupt],
          ...common,
        ];
      case 'PostToolsHook':
        return [
          [60, () => valid({ type: 'PostToolsHookCompleted', actionTaken: choose.chance(2) })],
          [
            8,
            () =>
              valid({
                type: 'PostToolsHookCompleted',
                actionTaken: false,
                error: 'auto-commit failed: index.lock exists',
              }),
          ],
          [6, userInput],
          [profile.interrupts.PostToolsHook, interrupt],
          [2, setMode],
          [1, setTools],
          ...common,
        ];
      case 'Error':
        return [
          [60, () => valid({ type: 'RetryTimeoutFired' })],
          [6, userInput],
          [profile.interrupts.Error, interrupt],
          [2, setMode],
          [1, setTools],
          ...common,
        ];
      case 'ProcessingLlmResponse':
        // It rests only in CheckingStop: the stop hook answers on a response that would end the
        // turn, or the user types, interrupts, or the process restarts meanwhile.
        return [
          [50, () => valid(stopDecision(choose))],
          [6, userInput],
          [profile.interrupts.CheckingStop, interrupt],
          [3, resume],
          [2, setMode],
          [1, setTools],
          ...common,
        ];
      default:
        // ShuttingDown (final): anything at all, all of it to be ignored.
        return [[10, userInput], [5, interrupt], ...common.map(([, pick]) => [5, pick] as const)];
    }
  })();
  return choose.weighted(options)();
}

function valid(event: AgentEvent): Planned {
  return { kind: 'valid', event };
}

/** The agent waits for the `userPromptSubmit` hook on the prompt at the head of its queue. */
export function isCheckingPrompt(core: Pick<AgentCore, 'stateValue'>): boolean {
  return describeStateValue(core.stateValue) === 'WaitingForUserInput.CheckingPrompt';
}

/**
 * The stage of the compaction underway, before a request or asked for between turns: waiting for
 * the `preCompact` hook (`checking`) or for the model's summary (`summarising`); `null` with none.
 */
export function compactionStage(
  core: Pick<AgentCore, 'stateValue'>,
): 'checking' | 'summarising' | null {
  const place = describeStateValue(core.stateValue);
  if (place.endsWith('.CheckingCompaction')) return 'checking';
  if (place.endsWith('.Compacting')) return 'summarising';
  return null;
}

/** The agent waits in `WaitingForUserInput.Ready`, the one state that takes `Compact`. */
export function isReady(core: Pick<AgentCore, 'stateValue'>): boolean {
  return describeStateValue(core.stateValue) === 'WaitingForUserInput.Ready';
}

/** The agent waits for the `stop` hook on a response that would end the turn. */
export function isCheckingStop(core: Pick<AgentCore, 'stateValue'>): boolean {
  return describeStateValue(core.stateValue) === 'ProcessingLlmResponse.CheckingStop';
}

/**
 * `config` with what the wait `place` needs for a run aiming for it to reach it: the hook it
 * waits for (`WaitingForUserInput.CheckingPrompt`; `ProcessingLlmResponse` by either name; the
 * `CheckingCompaction` states), and for a compaction before a request (`CallingLlm.` its
 * states), a context window small enough.
 */
export function withWaitFor(place: string | undefined, config: AgentConfig): AgentConfig {
  const hook =
    place === 'WaitingForUserInput.CheckingPrompt'
      ? 'userPromptSubmit'
      : place === 'ProcessingLlmResponse' || place === 'ProcessingLlmResponse.CheckingStop'
        ? 'stop'
        : place?.endsWith('.CheckingCompaction') === true
          ? 'preCompact'
          : null;
  const hooked = hook === null ? config : { ...config, hooks: { ...config.hooks, [hook]: true } };
  const compacting = place === 'CallingLlm.CheckingCompaction' || place === 'CallingLlm.Compacting';
  if (compacting) return { ...hooked, compaction: SMALL_WINDOW };
  // The post-tools hook needs a mutating call that runs: in plan mode none does.
  if (place === 'PostToolsHook' && hooked.permissions?.mode === 'plan') {
    return { ...hooked, permissions: { ...hooked.permissions, mode: 'default' } };
  }
  return hooked;
}

/** The reason a `userPromptSubmit` hook gives when it blocks, and the note it adds. */
const PROMPT_BLOCK_REASON = 'the prompt names a secret';
const PROMPT_CONTEXT = 'branch: main, 2 files changed';
const HOOK_FAILURE = 'the hook failed: boom';
/** What a `stop` hook that has the turn go on tells the model. */
const STOP_REASON = 'the tests still fail; run them and fix what fails';

/**
 * A `userPromptSubmit` hook's answer: let through, with a note or without; blocked, with a reason
 * or without; or failed (a failed hook blocks nothing, even when it said block).
 */
function promptDecision(choose: Chooser): AgentEvent {
  return choose.weighted<AgentEvent>([
    [4, { type: 'UserPromptSubmitDecision' }],
    [3, { type: 'UserPromptSubmitDecision', context: PROMPT_CONTEXT }],
    [3, { type: 'UserPromptSubmitDecision', decision: 'block', reason: PROMPT_BLOCK_REASON }],
    [1, { type: 'UserPromptSubmitDecision', decision: 'block' }],
    // A note with a block: the prompt goes nowhere, and neither does the note.
    [1, { type: 'UserPromptSubmitDecision', decision: 'block', context: PROMPT_CONTEXT }],
    [2, { type: 'UserPromptSubmitDecision', error: HOOK_FAILURE }],
    [1, { type: 'UserPromptSubmitDecision', decision: 'block', error: HOOK_FAILURE }],
    [1, { type: 'UserPromptSubmitDecision', context: PROMPT_CONTEXT, error: HOOK_FAILURE }],
  ]);
}

/**
 * A `stop` hook's answer: the turn ends, goes on (with the model's next instruction), or the hook
 * failed (a failed hook has nothing go on, even when it said continue).
 */
function stopDecision(choose: Chooser): AgentEvent {
  return choose.weighted<AgentEvent>([
    [4, { type: 'StopDecision' }],
    [5, { type: 'StopDecision', decision: 'continue', reason: STOP_REASON }],
    [2, { type: 'StopDecision', error: HOOK_FAILURE }],
    [1, { type: 'StopDecision', decision: 'continue', reason: STOP_REASON, error: HOOK_FAILURE }],
  ]);
}

/**
 * A `preCompact` hook's answer: the compaction goes on (with instructions for the summary or
 * without), is vetoed (with a reason or without), or the hook failed (a failed hook vetoes
 * nothing, even when it said block).
 */
function preCompactDecision(choose: Chooser): AgentEvent {
  return choose.weighted<AgentEvent>([
    [4, { type: 'PreCompactDecision' }],
    [3, { type: 'PreCompactDecision', instructions: 'Keep the failing test names.' }],
    [3, { type: 'PreCompactDecision', decision: 'block', reason: 'a release is in progress' }],
    [1, { type: 'PreCompactDecision', decision: 'block' }],
    [2, { type: 'PreCompactDecision', error: HOOK_FAILURE }],
    [1, { type: 'PreCompactDecision', decision: 'block', error: HOOK_FAILURE }],
  ]);
}

/**
 * What a compaction's summary call answers: the summary (streamed first, sometimes; the chart
 * drops what streams), an empty answer, or a failure.
 */
function summaryCallEvents(choose: Chooser): Array<readonly [number, () => Planned]> {
  const summary = (text: string): LlmResponse => ({
    message: { role: 'assistant', content: text === '' ? [] : [{ type: 'text', text }] },
    stopReason: 'end_turn',
    usage: { input_tokens: choose.int(3000), output_tokens: choose.int(400) },
  });
  return [
    [8, () => valid({ type: 'LlmStarted' })],
    [10, () => valid({ type: 'LlmTextDelta', content: choose.oneOf(TEXT_PIECES) })],
    [
      40,
      () =>
        valid({
          type: 'LlmCompleted',
          response: summary(choose.chance(8) ? '' : 'The user is fixing src/file0.ts.'),
        }),
    ],
    [10, () => valid({ type: 'LlmError', error: llmError(choose) })],
  ];
}

function toolCallDelta(choose: Chooser, world: World): AgentEvent {
  return {
    type: 'LlmToolCallDelta',
    callId: choose.oneOf(['toolu_streaming', ...world.pastCallIds.slice(-1)]),
    toolName: choose.oneOf(TOOL_NAMES),
    argumentsFragment: choose.oneOf(['{"pa', 'th": "a.t', 'xt"}']),
  };
}

/**
 * A model response: text, 0–3 tool calls, sometimes a refusal, a cut-off or a bad input; with
 * `reusedIds`, one call in that many takes an id already used.
 */
export function llmResponse(choose: Chooser, world: World, reusedIds = 0): LlmResponse {
  const callCount = choose.weighted([
    [30, 0],
    [35, 1],
    [20, 2],
    [15, 3],
  ] as const);
  const content: ContentBlock[] = [];
  const empty = callCount === 0 && choose.chance(12);
  if (!empty) {
    if (choose.chance(8)) content.push({ type: 'thinking', thinking: 'Hmm.', signature: 'sig' });
    if (callCount === 0 || !choose.chance(3))
      content.push({ type: 'text', text: 'Working on it.' });
  }
  const calls: ToolCall[] = [];
  for (let index = 0; index < callCount; index++) {
    // A task for a subagent now and then: as often as the others, it would crowd out the
    // mutating calls the post-tools hook needs.
    const name = choose.chance(10) ? TASK_TOOL : choose.oneOf(TOOL_NAMES);
    const reuse = reusedIds > 0 && world.pastCallIds.length > 0 && choose.chance(reusedIds);
    const call: ToolCall = {
      id: reuse ? choose.oneOf(world.pastCallIds.slice(-4)) : world.newCallId(),
      name,
      input:
        name === 'bash'
          ? { command: 'npm test' }
          : name === 'ask_user'
            ? questionsInput(choose)
            : name === TASK_TOOL
              ? taskInput(choose)
              : { path: `src/file${index}.ts` },
    };
    calls.push(call);
    content.push({ type: 'tool_use', ...call });
  }
  const stopReason = choose.weighted<StopReason | undefined>([
    [70, callCount > 0 ? 'tool_use' : 'end_turn'],
    [8, 'refusal'],
    [10, 'max_tokens'],
    [4, 'stop_sequence'],
    [4, undefined],
  ]);
  const response: LlmResponse = { message: { role: 'assistant', content } };
  if (stopReason !== undefined) response.stopReason = stopReason;
  // As the API reports it, mostly: a proxy or an older server may leave it out.
  if (!choose.chance(3)) {
    response.usage = { input_tokens: choose.int(5000), output_tokens: choose.int(800) };
  }
  const broken = calls.length > 0 && choose.chance(6) ? choose.oneOf(calls) : undefined;
  if (broken !== undefined) {
    response.toolInputErrors = { [broken.id]: 'Unexpected end of JSON input' };
  }
  return response;
}

/** A failed model call: mostly retryable kinds, sometimes with `Retry-After`. */
export function llmError(choose: Chooser): LlmError {
  const retryable = !choose.chance(5);
  const kind = choose.oneOf(retryable ? RETRYABLE_KINDS : NON_RETRYABLE_KINDS);
  const error: LlmError = {
    kind,
    message: `${kind} failure #${choose.int(99)}`,
  };
  const status: Partial<Record<LlmErrorKind, number>> = {
    rate_limit: 429,
    overloaded: 529,
    server: 500,
    auth: 401,
    invalid_request: 400,
  };
  const code = status[kind];
  if (code !== undefined) error.status = code;
  if ((kind === 'rate_limit' && !choose.chance(4)) || (kind === 'overloaded' && choose.chance(4))) {
    error.retryAfterMs = choose.oneOf([0, 150, 1000, 3000, 9000]);
  }
  return error;
}

function toolCompleted(choose: Chooser, run: { call: ToolCall }): AgentEvent {
  const event: AgentEvent = {
    type: 'ToolCompleted',
    callId: run.call.id,
    outcome: choose.chance(4)
      ? { status: 'error', error: { message: `${run.call.name} failed` } }
      : {
          status: 'success',
          output: choose.oneOf(['ok', '', { lines: 3 }, ['a', 'b']]),
        },
  };
  // A subagent answers with what its own model calls used (a cost, or none known), mostly.
  if (run.call.name === TASK_TOOL && !choose.chance(4)) {
    event.usage = {
      input_tokens: choose.int(3000),
      output_tokens: choose.int(500),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: choose.int(1000),
      costUsd: choose.chance(3) ? null : choose.int(100) / 1000,
    };
  }
  return event;
}

function approval(choose: Chooser, run: { call: ToolCall }): AgentEvent {
  const event: AgentEvent = {
    type: 'ToolApproval',
    callId: run.call.id,
    decision: choose.chance(3) ? 'deny' : 'allow',
  };
  const remember = choose.int(3);
  if (remember < 2) event.remember = remember === 0;
  return event;
}

/** A tool hook's answer for a call waiting for it: each decision, a new input, a note, a failure. */
function hookAnswer(choose: Chooser, run: { call: ToolCall; status: string }): AgentEvent {
  const callId = run.call.id;
  if (run.status === 'postHook') {
    return choose.oneOf<AgentEvent>([
      { type: 'PostToolUseResult', callId },
      { type: 'PostToolUseResult', callId, context: 'formatted' },
      { type: 'PostToolUseResult', callId, message: 'the hook explains' },
      { type: 'PostToolUseResult', callId, error: 'the postToolUse hook failed: boom' },
    ]);
  }
  return choose.oneOf<AgentEvent>([
    { type: 'PreToolUseDecision', callId },
    { type: 'PreToolUseDecision', callId, decision: 'allow' },
    { type: 'PreToolUseDecision', callId, decision: 'deny', reason: 'not today' },
    { type: 'PreToolUseDecision', callId, decision: 'ask' },
    { type: 'PreToolUseDecision', callId, input: { path: 'elsewhere.txt' }, context: 'moved' },
    { type: 'PreToolUseDecision', callId, error: 'the preToolUse hook failed: boom' },
  ]);
}

/** Answers to an `ask_user` call: one per question, or (sometimes) one too few. */
function userAnswer(choose: Chooser, run: { call: ToolCall }): AgentEvent {
  const count = (run.call.input as { questions: unknown[] }).questions.length;
  const answers = Array.from({ length: count }, () => choose.oneOf(['SQLite', '', 'orders']));
  if (choose.chance(8)) answers.pop();
  return { type: 'UserAnswer', callId: run.call.id, answers };
}

/** Well-formed events that are often not valid where they arrive. */
function noiseEvent(choose: Chooser, world: World): AgentEvent {
  const staleId = choose.oneOf(['toolu_ghost', ...world.pastCallIds.slice(-4)]);
  return choose.oneOf<() => AgentEvent>([
    () => ({
      type: 'ToolCompleted',
      callId: staleId,
      outcome: { status: 'success', output: 'late' },
    }),
    () => ({ type: 'ToolProgress', callId: staleId, progress: 'late' }),
    () => ({ type: 'ToolApproval', callId: staleId, decision: 'allow' }),
    () => ({ type: 'UserAnswer', callId: staleId, answers: ['late'] }),
    () => ({ type: 'PreToolUseDecision', callId: staleId, decision: 'allow' }),
    () => ({ type: 'PostToolUseResult', callId: staleId }),
    () => ({ type: 'RetryTimeoutFired' }),
    () => ({ type: 'PostToolsHookCompleted', actionTaken: false }),
    () => ({ type: 'LlmTextDelta', content: 'stray' }),
    () => ({
      type: 'LlmCompleted',
      response: { message: { role: 'assistant', content: 'stray' }, stopReason: 'end_turn' },
    }),
    () => ({ type: 'LlmError', error: { kind: 'server', message: 'stray 500' } }),
    () => ({ type: 'LlmStarted' }),
    () => ({ type: 'Interrupt' }),
    () => ({ type: 'UserPromptSubmitDecision', decision: 'block' }),
    () => ({ type: 'UserPromptSubmitDecision', context: 'late' }),
    () => ({ type: 'StopDecision', decision: 'continue', reason: 'late' }),
    () => ({ type: 'StopDecision' }),
    () => ({ type: 'PreCompactDecision', decision: 'block' }),
    () => ({ type: 'PreCompactDecision', instructions: 'late' }),
    () => ({ type: 'Compact' }),
  ])();
}

/** Objects that are not `AgentEvent`s, some aimed at ids and states where a valid one would act. */
function malformedEvent(choose: Chooser, core: AgentCore): unknown {
  const liveId = core.context.toolRuns.find((run) => run.status !== 'done')?.call.id ?? 'toolu_x';
  return choose.oneOf<() => unknown>([
    () => null,
    () => 42,
    () => 'Interrupt',
    () => ({}),
    () => ({ type: 42 }),
    () => ({ type: 'Nope' }),
    () => ({ type: 'toString' }),
    () => ({ type: '__proto__' }),
    () => ({ type: 'UserInput' }),
    () => ({ type: 'UserInput', message: { role: 'assistant', content: 'hi' } }),
    () => ({ type: 'UserInput', message: { role: 'user', content: '' } }),
    () => ({ type: 'UserInput', message: { role: 'user', content: [] } }),
    () => ({ type: 'UserInput', message: { role: 'user', content: [{ text: 'no type' }] } }),
    () => ({ type: 'LlmTextDelta', content: 7 }),
    () => ({ type: 'LlmToolCallDelta', callId: 'toolu_x', toolName: 'bash' }),
    () => ({ type: 'LlmCompleted' }),
    () => ({ type: 'LlmCompleted', response: { message: { role: 'user', content: 'hi' } } }),
    () => ({ type: 'LlmCompleted', response: { message: { role: 'assistant', content: [42] } } }),
    () => ({
      type: 'LlmCompleted',
      response: { message: { role: 'assistant', content: [{ type: 'tool_use', name: 'bash' }] } },
    }),
    () => ({ type: 'LlmError', error: { kind: 'teapot', message: 'no' } }),
    () => ({ type: 'LlmError', error: { kind: 'server' } }),
    () => ({ type: 'LlmError', error: { kind: 'rate_limit', message: 'slow', retryAfterMs: -5 } }),
    () => ({ type: 'LlmError', error: 'overloaded' }),
    () => ({ type: 'ToolCompleted', callId: liveId }),
    () => ({ type: 'ToolCompleted', callId: liveId, outcome: { status: 'done' } }),
    () => ({ type: 'ToolCompleted', callId: liveId, outcome: { status: 'error', error: 'boom' } }),
    () => ({ type: 'ToolCompleted', callId: 5, outcome: { status: 'success', output: 1 } }),
    () => ({ type: 'ToolProgress', progress: 1 }),
    () => ({ type: 'PostToolsHookCompleted', actionTaken: 'yes' }),
    () => ({ type: 'PostToolsHookCompleted' }),
    () => ({ type: 'ToolApproval', callId: liveId, decision: 'maybe' }),
    () => ({ type: 'ToolApproval', callId: liveId, decision: 'allow', remember: 'yes' }),
    () => ({ type: 'UserAnswer', callId: liveId }),
    () => ({ type: 'UserAnswer', callId: liveId, answers: [1] }),
    () => ({ type: 'PreToolUseDecision', callId: liveId, decision: 'maybe' }),
    () => ({ type: 'PreToolUseDecision', callId: liveId, input: 'rm -rf' }),
    () => ({ type: 'PostToolUseResult', callId: liveId, context: 7 }),
    () => ({ type: 'UserPromptSubmitDecision', decision: 'allow' }),
    () => ({ type: 'UserPromptSubmitDecision', decision: 'block', reason: 42 }),
    () => ({ type: 'UserPromptSubmitDecision', context: { note: 'x' } }),
    () => ({ type: 'StopDecision', decision: 'stop' }),
    // A turn that goes on needs the model's next instruction.
    () => ({ type: 'StopDecision', decision: 'continue' }),
    () => ({ type: 'StopDecision', decision: 'continue', reason: '  ' }),
    () => ({ type: 'StopDecision', error: false }),
    () => ({ type: 'PreCompactDecision', decision: 'allow' }),
    () => ({ type: 'PreCompactDecision', instructions: 7 }),
    () => ({ type: 'Compact', instructions: ['keep'] }),
    () => ({ type: 'SetPermissionMode', mode: 'yolo' }),
    () => ({ type: 'SetPermissionMode' }),
    () => ({ type: 'SetTools' }),
    () => ({ type: 'SetTools', tools: { name: 'bash' } }),
    () => ({ type: 'SetTools', tools: [{ name: 'two words' }] }),
    () => ({ type: 'SetTools', tools: [{ name: 'bash' }, { name: 'bash', mutating: true }] }),
    () => ({ type: 'SetTools', tools: [{ name: 'deploy', mutating: 'yes' }] }),
    () => ({ type: 'SetTools', tools: [{ name: 'ls', inputSchema: { type: 'string' } }] }),
  ])();
}

// ─── the oracle ──────────────────────────────────────────────────────────────────────────────

/**
 * States a turn runs in; `Interrupt` leaves each of them. (`ProcessingLlmResponse` is one only
 * while it waits for the `stop` hook: it routes a response at once otherwise.)
 */
export const TURN_STATES: readonly AgentStateName[] = [
  'CallingLlm',
  'ExecutingTools',
  'PostToolsHook',
  'Error',
  'ProcessingLlmResponse',
];

/**
 * What DESIGN section 1 says should happen to this event here: taken, or refused with which
 * diagnostic code. Written from the design, not from the chart's code.
 */
export function expectedVerdict(
  core: AgentCore,
  planned: Planned,
): 'accepted' | AgentDiagnosticCode {
  if (planned.kind === 'malformed') return 'MALFORMED_EVENT';
  if (core.done) return 'AGENT_STOPPED';
  const { event } = planned;
  const { state, context } = core;
  // Waiting for the userPromptSubmit hook, the agent is between turns and yet busy: the prompt
  // may be withdrawn (Interrupt) and the hook asked again (Resume); so is it during a compaction
  // asked for between turns.
  const checkingPrompt = isCheckingPrompt(core);
  const compaction = compactionStage(core);
  const busyBetweenTurns =
    checkingPrompt || (state === 'WaitingForUserInput' && compaction !== null);
  // A request streams once any compaction it needed is over.
  const streaming = state === 'CallingLlm' && compaction === null;
  const hasRun = (callId: string, status: string) =>
    context.toolRuns.some((run) => run.call.id === callId && run.status === status);
  const taken = (() => {
    switch (event.type) {
      case 'UserInput':
      case 'SetPermissionMode':
      case 'SetTools':
      case 'ShutdownRequested':
        return true;
      case 'LlmStarted':
      case 'LlmTextDelta':
      case 'LlmToolCallDelta':
        // What a summary call streams is dropped: only the whole summary counts.
        return streaming;
      case 'LlmCompleted':
      case 'LlmError':
        return streaming || compaction === 'summarising';
      case 'Interrupt':
        return TURN_STATES.includes(state) || busyBetweenTurns;
      case 'ToolCompleted':
        return (
          (state === 'ExecutingTools' && hasRun(event.callId, 'running')) ||
          (state === 'WaitingForUserInput' && hasRun(event.callId, 'cancelling'))
        );
      case 'ToolProgress':
        return state === 'ExecutingTools' && hasRun(event.callId, 'running');
      case 'ToolGraceExpired':
        return (
          state === 'WaitingForUserInput' &&
          context.toolRuns.some((run) => run.status === 'cancelling')
        );
      case 'Resume':
        // Work in flight starts again; at rest there is none (after an interrupt, the calls it
        // waits for are in flight).
        return (
          TURN_STATES.includes(state) ||
          busyBetweenTurns ||
          (state === 'WaitingForUserInput' &&
            context.toolRuns.some((run) => run.status === 'cancelling'))
        );
      case 'ToolApproval':
        return state === 'ExecutingTools' && hasRun(event.callId, 'awaitingApproval');
      case 'PreToolUseDecision':
        return state === 'ExecutingTools' && hasRun(event.callId, 'preHook');
      case 'PostToolUseResult':
        return state === 'ExecutingTools' && hasRun(event.callId, 'postHook');
      case 'UserAnswer': {
        // One answer per question the call asks.
        const run = context.toolRuns.find((candidate) => candidate.call.id === event.callId);
        const asked = (run?.call.input as { questions?: unknown[] } | undefined)?.questions;
        return (
          state === 'ExecutingTools' &&
          run?.status === 'awaitingAnswer' &&
          asked?.length === event.answers.length
        );
      }
      case 'PostToolsHookCompleted':
        return state === 'PostToolsHook';
      case 'RetryTimeoutFired':
        return state === 'Error';
      case 'UserPromptSubmitDecision':
        return checkingPrompt;
      case 'StopDecision':
        return state === 'ProcessingLlmResponse';
      case 'PreCompactDecision':
        return compaction === 'checking';
      case 'Compact':
        return isReady(core);
    }
  })();
  return taken ? 'accepted' : 'EVENT_NOT_ACCEPTED';
}

// ─── the driver ──────────────────────────────────────────────────────────────────────────────

/** One event fed to a core, with everything around it. */
export interface StepRecord {
  planned: Planned;
  stateBefore: AgentStateName;
  /** Where the chart was before the event, nested states included. */
  stateValueBefore: AgentStateValue;
  contextBefore: AgentContext;
  actions: AgentAction[];
  stateAfter: AgentStateName;
  /** Where the chart is after the event, nested states included. */
  stateValueAfter: AgentStateValue;
  contextAfter: AgentContext;
  diagnostics: AgentDiagnostic[];
}

/** A core and the diagnostics it reported. */
export class Probe {
  readonly core: AgentCore;
  readonly #diagnostics: AgentDiagnostic[] = [];

  constructor(core: AgentCore) {
    this.core = core;
    core.onDiagnostic((diagnostic) => this.#diagnostics.push(diagnostic));
  }

  static create(config: AgentConfig): Probe {
    return new Probe(new AgentCore(config));
  }

  feed(planned: Planned): StepRecord {
    const { core } = this;
    const stateBefore = core.state;
    const stateValueBefore = core.stateValue;
    const contextBefore = core.context;
    this.#diagnostics.length = 0;
    // Malformed events are fed as they are: the point is that a caller may send anything.
    const actions = core.handleEvent(planned.event as AgentEvent);
    return {
      planned,
      stateBefore,
      stateValueBefore,
      contextBefore,
      actions,
      stateAfter: core.state,
      stateValueAfter: core.stateValue,
      contextAfter: core.context,
      diagnostics: this.#diagnostics.slice(),
    };
  }
}

/**
 * Runs `length` model-chosen events through a fresh core, calling `check` after each one. A
 * failure is rethrown with the configuration and the events so far, which is the minimal event
 * sequence once fast-check has shrunk it.
 */
export function runScenario(
  options: {
    g: fc.GeneratorValue;
    config: AgentConfig;
    length: number;
    profile: Profile;
    /**
     * Stop early, before the next event, once the agent is in this state: a top-level name, or
     * a nested one as `describeStateValue` writes it (`WaitingForUserInput.CheckingPrompt`).
     */
    stopIn?: string | undefined;
  },
  check: (step: StepRecord, probe: Probe, index: number) => void,
): { probe: Probe; events: Planned[]; world: World; choose: Chooser } {
  const probe = Probe.create(options.config);
  const choose = new Chooser(options.g);
  const world = new World();
  const events: Planned[] = [];
  guard(options.config, events, () => {
    for (let index = 0; index < options.length; index++) {
      const { state, stateValue } = probe.core;
      if (state === options.stopIn || describeStateValue(stateValue) === options.stopIn) break;
      const planned = nextEvent(choose, probe.core, world, options.profile);
      events.push(planned);
      check(probe.feed(planned), probe, index);
    }
  });
  return { probe, events, world, choose };
}

/** Runs `body`, and on failure says which config and events led there. */
export function guard(config: AgentConfig, events: readonly Planned[], body: () => void): void {
  try {
    body();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const log = events.map((planned) => JSON.stringify(planned.event)).join('\n  ');
    throw new Error(`${detail}\nconfig: ${JSON.stringify(config)}\nevents:\n  ${log}`, {
      cause: error,
    });
  }
}

/**
 * What entering `CallingLlm` starts: the request (`SendLlmRequest`), or, when it would pass the
 * compaction threshold, the compaction it needs first (`RunPreCompactHook` with the `preCompact`
 * hook on, `SendCompactionRequest` without).
 */
export function requestStarts(actions: readonly AgentAction[]): AgentAction[] {
  return actions.filter(
    (action) =>
      action.type === 'SendLlmRequest' ||
      (action.type === 'SendCompactionRequest' && action.trigger === 'auto') ||
      (action.type === 'RunPreCompactHook' && action.trigger === 'auto'),
  );
}

/** The plain text of a message, for finding user inputs by their unique text. */
export function textOf(content: string | ContentBlock[]): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) => (block.type === 'text' && 'text' in block ? block.text : ''))
    .join('');
}

/**
 * Asserts that each kind of case a property counted in `seen` came more often than its minimum:
 * often enough to mean something.
 */
export function expectOftenEnough<Kind extends string>(
  seen: Record<Kind, number>,
  minimums: Record<Kind, number>,
): void {
  for (const [kind, minimum] of Object.entries(minimums) as Array<[Kind, number]>) {
    expect(seen[kind], kind).toBeGreaterThan(minimum);
  }
}

/** Asserts that a refused event left everything as it was and was reported with `code`. */
export function expectRefused(step: StepRecord, code: AgentDiagnosticCode): void {
  expect(step.actions, `${code}: no actions`).toEqual([]);
  expect(step.stateAfter).toBe(step.stateBefore);
  expect(step.contextAfter === step.contextBefore, 'the context object is unchanged').toBe(true);
  expect(step.diagnostics.map((diagnostic) => diagnostic.code)).toEqual([code]);
  expect(step.diagnostics[0]?.event).toBe(step.planned.event);
  expect(step.diagnostics[0]?.state).toBe(step.stateBefore);
}
