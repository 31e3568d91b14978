/**
 * A caller's hook that does not answer until the test lets it: the agent stands in the state
 * that waits for the hook for as long as the test looks at the page.
 */

/**
 * A hook whose calls are held, in order, until {@link HookGate.answer} answers the oldest.
 *
 * @example
 * const stop = hookGate<{ text: string }, StopAnswer>();
 * const agent = createAgent({ hooks: { stop: stop.hook } });
 * agent.send('Fix the build');
 * await stop.called(1);
 * stop.answer({ decision: 'continue', reason: 'the tests still fail' });
 */
export interface HookGate<Input, Answer> {
  /** The hook to give `createAgent`. */
  hook: (input: Input) => Promise<Answer | undefined>;
  /** What each call was given, in order. */
  readonly calls: Input[];
  /** Resolves with what call `count` (from 1) was given, once the hook has been called so often. */
  called(count: number): Promise<Input>;
  /** Answers the oldest call not answered yet (`undefined`: the hook decides nothing). */
  answer(answer?: Answer): void;
}

/**
 * A new {@link HookGate}.
 *
 * @example
 * const gate = hookGate<{ text: string }, UserPromptSubmitAnswer>();
 */
export function hookGate<Input, Answer>(): HookGate<Input, Answer> {
  const calls: Input[] = [];
  const held: ((answer: Answer | undefined) => void)[] = [];
  let wake: (() => void)[] = [];
  return {
    calls,
    hook: (input) =>
      new Promise((resolve) => {
        calls.push(input);
        held.push(resolve);
        const waiting = wake;
        wake = [];
        for (const resume of waiting) resume();
      }),
    async called(count) {
      while (calls.length < count) await new Promise<void>((resume) => wake.push(resume));
      return calls[count - 1]!;
    },
    answer(answer) {
      const resolve = held.shift();
      // Answering a call that never came would pass a test for nothing.
      if (resolve === undefined) throw new Error('no call of the hook is waiting for an answer');
      resolve(answer);
    },
  };
}
