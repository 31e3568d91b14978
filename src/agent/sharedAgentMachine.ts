/**
 * The chart every agent of `createAgent` runs, provided once. `machine.provide` builds a whole new
 * machine — every state node and transition, and the parts XState memoises as they are first
 * used — so a chart provided per agent is kept, and warmed up, once per agent. This one is
 * provided with stand-ins for its actors instead: each finds, in the actor system it runs in, the
 * table of that agent's own actors (`agentActors`) that {@link registerAgentActors} put there,
 * and does what that agent's actor does.
 */
import {
  type Actor,
  type ActorLogic,
  type AnyActorLogic,
  type AnyActorRef,
  createActor,
  type EventObject,
  fromTransition,
  type Snapshot,
} from 'xstate';
import {
  AGENT_ACTOR_NAMES,
  type AgentActorName,
  type AgentMachine,
  agentMachine,
} from '../machine/index.js';

/** One agent's actors, by the names the chart invokes them by. */
export type AgentActorTable = Record<AgentActorName, AnyActorLogic>;

/** Where in an agent's actor system the table of its actors is found. */
const AGENT_ACTORS_SYSTEM_ID = 'agent-statechart.actors';

/** Actor logic as a stand-in sees it: it only passes snapshots and events through. */
type Logic = ActorLogic<
  Snapshot<unknown>,
  EventObject,
  unknown,
  AnyActorRef['system'],
  EventObject
>;
type Scope = Parameters<Logic['transition']>[2];

/** The agent's own logic for `name`, found in the actor system `scope` runs in. */
function ownLogic(name: AgentActorName, scope: Scope): Logic {
  const holder = scope.system.get(AGENT_ACTORS_SYSTEM_ID) as AnyActorRef | undefined;
  const table = (holder?.getSnapshot() as { context?: Record<AgentActorName, Logic> } | undefined)
    ?.context;
  if (table === undefined) {
    throw new Error(`agent-statechart: no actors are registered for the agent that runs ${name}`);
  }
  return table[name];
}

/**
 * Stands in for the agent's `name` actor: its snapshots are that actor's own. XState gives
 * `getPersistedSnapshot` no actor system to look the agent's actor up in, so a snapshot is
 * persisted as it is, which is what the package's own (callback) actors do; replacements a caller
 * gives, which may persist theirs otherwise, get a chart of their own (see `createAgent`).
 */
function standIn(name: AgentActorName): AnyActorLogic {
  const logic: Logic = {
    getInitialSnapshot: (scope, input) => ownLogic(name, scope).getInitialSnapshot(scope, input),
    start: (snapshot, scope) => ownLogic(name, scope).start?.(snapshot, scope),
    transition: (snapshot, event, scope) =>
      ownLogic(name, scope).transition(snapshot, event, scope),
    getPersistedSnapshot: (snapshot) => snapshot,
    restoreSnapshot: (snapshot, scope) => {
      const own = ownLogic(name, scope);
      return own.restoreSnapshot ? own.restoreSnapshot(snapshot, scope) : snapshot;
    },
  };
  return logic;
}

function standIns(): AgentActorTable {
  const actors = {} as AgentActorTable;
  for (const name of AGENT_ACTOR_NAMES) actors[name] = standIn(name);
  return actors;
}

/** The chart with stand-ins for its actors, shared by every agent given no replacements. */
export const sharedAgentMachine: AgentMachine = agentMachine.provide({ actors: standIns() });

/** Holds one agent's table of actors, which never changes; it is never started. */
const actorTableHolder = fromTransition(
  (table: AgentActorTable) => table,
  ({ input }: { input: AgentActorTable }) => input,
);

/**
 * Registers `actors` as the actors of the agent whose chart is `chart`, made from
 * {@link sharedAgentMachine} and not started yet: in the chart's actor system, where its
 * stand-ins look them up.
 *
 * @example
 * const chart = createActor(sharedAgentMachine, { input: { config } });
 * registerAgentActors(chart, agentActors(undefined, settings));
 * chart.start();
 */
export function registerAgentActors(chart: Actor<AgentMachine>, actors: AgentActorTable): void {
  // Registration can only follow the chart's creation (the chart's system is made with it), and
  // a chart invokes its actors as it is created when its first state has any: a stand-in made
  // then found no table, and its actor would never run. The chart starts in a state that invokes
  // none; this keeps it so.
  if (Object.keys(chart.getSnapshot().children).length > 0) {
    throw new Error(
      'agent-statechart: the chart invoked an actor before its actors were registered',
    );
  }
  createActor(actorTableHolder, { parent: chart, systemId: AGENT_ACTORS_SYSTEM_ID, input: actors });
}
