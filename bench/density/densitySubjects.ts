/**
 * The subjects of the density benchmark, by id, each loaded only in the process that measures
 * it (so no subject's modules sit in another's memory or JIT).
 */
import type { DensitySubject } from './densitySubject.js';

export const DENSITY_SUBJECTS = {
  sdk: {
    label: '(a) bare SDK messages.stream — the floor',
    load: async () => (await import('./subjects/bareSdk.js')).bareSdk,
  },
  agent: {
    label: '(b) createAgent',
    load: async () => (await import('./subjects/createAgentSubject.js')).createAgentSubject,
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
