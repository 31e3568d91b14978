/**
 * The subjects of the density benchmark, by id, each loaded only in the process that measures
 * it (so no subject's modules sit in another's memory or JIT).
 */
import { loadBaselinePackage } from '../baseline/baselinePackage.js';
import type { DensitySubject } from './densitySubject.js';

export const DENSITY_SUBJECTS = {
  sdk: {
    label: '(a) bare SDK messages.stream — the floor',
    load: async () => (await import('./subjects/bareSdk.js')).bareSdk,
  },
  agent: {
    label: '(b) createAgent',
    load: async () => {
      const { createAgentSubject } = await import('./subjects/createAgentSubject.js');
      return createAgentSubject(await import('../../src/index.js'));
    },
  },
  agentSdk: {
    label: "(b) createAgent over the SDK's own streaming",
    // The same subject as `agent`, with the model call streamed by the SDK (`transport: 'sdk'`)
    // instead of the package's lean transport.
    load: async () => {
      const { createAgentSubject } = await import('./subjects/createAgentSubject.js');
      return createAgentSubject(await import('../../src/index.js'), { transport: 'sdk' });
    },
  },
  agentOtel: {
    label: '(b) createAgent traced, spans to an in-memory exporter',
    // The same subject as `agent`, with OpenTelemetry spans recorded by the SDK's in-memory
    // exporter: what tracing costs when a tracer is registered.
    load: async () => {
      const { createAgentSubject } = await import('./subjects/createAgentSubject.js');
      const otel = await import('@opentelemetry/sdk-trace-base');
      const provider = new otel.BasicTracerProvider({
        spanProcessors: [new otel.SimpleSpanProcessor(new otel.InMemorySpanExporter())],
      });
      return createAgentSubject(await import('../../src/index.js'), {
        telemetry: { tracer: provider.getTracer('bench') },
      });
    },
  },
  agentBase: {
    label: '(b) createAgent, baseline build',
    // The same subject as `agent`, on the package built at the `--baseline` commit.
    load: async () => {
      const { AGENT_EXPORTS, createAgentSubject } =
        await import('./subjects/createAgentSubject.js');
      return createAgentSubject(await loadBaselinePackage(AGENT_EXPORTS, 'the agentBase subject'));
    },
  },
  naive: {
    label: '(c) naive XState, every delta an event',
    load: async () => (await import('./subjects/naiveMachineSubject.js')).naiveMachineSubject,
  },
  lg: {
    label: '(d) LangGraph.js, no checkpointer',
    load: async () => (await import('./subjects/langGraphSubject.js')).langGraphSubject(false),
  },
  lgSaver: {
    label: '(d) LangGraph.js + MemorySaver',
    load: async () => (await import('./subjects/langGraphSubject.js')).langGraphSubject(true),
  },
} satisfies Record<string, { label: string; load: () => Promise<DensitySubject> }>;

export type DensitySubjectId = keyof typeof DENSITY_SUBJECTS;

export function isDensitySubjectId(id: string): id is DensitySubjectId {
  return Object.hasOwn(DENSITY_SUBJECTS, id);
}

/** Subjects measured only when `--subjects` names them: what tracing costs is not every run's question. */
const ON_REQUEST: ReadonlySet<DensitySubjectId> = new Set(['agentOtel']);

/** The subject that measures `agent`'s code on the baseline build, and the one it is paired with. */
export const BASELINE_PAIR = { current: 'agent', baseline: 'agentBase' } as const;

/**
 * The subjects a run measures, in the order a round starts with: those asked for (all but the
 * baseline's and the traced agent's when none are), and always the floor, first, since every ratio is to it. With a
 * baseline, `agentBase` runs right after `agent`, and `agent` runs even when not asked for,
 * since the two are paired; without one, asking for `agentBase` is an error.
 */
export function planDensitySubjects(
  requested: readonly string[] | undefined,
  withBaseline: boolean,
): DensitySubjectId[] {
  const { current, baseline } = BASELINE_PAIR;
  const all = Object.keys(DENSITY_SUBJECTS) as DensitySubjectId[];
  const asked = [
    ...new Set(
      (requested ?? all.filter((id) => id !== baseline && !ON_REQUEST.has(id))).filter(
        isDensitySubjectId,
      ),
    ),
  ];
  if (asked.length === 0) {
    throw new Error(`bench: --subjects takes known ids (${all.join(', ')})`);
  }
  if (asked.includes(baseline) && !withBaseline) {
    throw new Error(
      `bench: the subject ${baseline} measures a baseline build: add --baseline=<git ref>`,
    );
  }
  const subjects: DensitySubjectId[] = asked.filter((id) => id !== baseline && id !== 'sdk');
  if (withBaseline) {
    if (!subjects.includes(current)) subjects.unshift(current);
    subjects.splice(subjects.indexOf(current) + 1, 0, baseline);
  }
  return ['sdk', ...subjects];
}
