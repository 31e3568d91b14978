/**
 * What a chart's configuration may hold: each field of the right kind, within its closed set of
 * values, and no field of the request the chart sets itself. A refusal names the field and what
 * it takes, at `createAgent` and `new AgentCore`, before anything runs.
 */
import { AgentStatechartError } from './agentStatechartError.js';
import { ASK_USER_TOOL } from './askUser.js';
import { SUBAGENT_TOOL } from './subagents.js';
import { type AgentConfig, PERMISSION_MODES } from './config.js';
import { resolveCompaction, type ResolvedCompaction } from './compaction.js';
import type { PromptCachePolicy } from './messages.js';
import { outputSpecProblem } from './outputSpec.js';
import { clip, copyPlainJson, isNonNegativeNumber } from './plainJson.js';
import { toolRuleProblem } from './toolRules.js';
import type { ModelPrice } from './usage.js';

/**
 * Refuses a config field of the wrong kind, outside its range or its closed set of values, naming
 * the field and what it takes (a typo such as `mode: 'bypass'` would otherwise behave as a
 * default), and answers the fields it filled in or copied on the way.
 */
export function checkConfig(config: AgentConfig): CheckedConfig {
  const refuse: Refuse = (field, expected, got) => {
    throw new AgentStatechartError(
      'INVALID_CONFIG',
      `${field} must be ${expected}; got ${describeValue(got)}`,
    );
  };
  if (typeof config !== 'object' || config === null) refuse('the config', 'an object', config);
  const maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 1) {
    refuse(
      'maxRetries',
      'a whole number of at least 1 (total attempts per model call)',
      maxRetries,
    );
  }
  const maxTokens = config.maxTokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    refuse('maxTokens', 'a positive whole number', maxTokens);
  }
  const toolGraceMs = config.toolGraceMs ?? DEFAULT_TOOL_GRACE_MS;
  if (!isNonNegativeNumber(toolGraceMs)) {
    refuse('toolGraceMs', 'a non-negative number of milliseconds', toolGraceMs);
  }
  if (config.model !== undefined && (typeof config.model !== 'string' || config.model === '')) {
    refuse('model', 'a non-empty string', config.model);
  }
  checkSystem(config.system, refuse);
  const request = checkRequestFields(config.request, maxTokens, refuse);
  if (config.promptCache !== undefined && !PROMPT_CACHE_POLICIES.includes(config.promptCache)) {
    refuse('promptCache', `one of ${PROMPT_CACHE_POLICIES.join(', ')}`, config.promptCache);
  }
  const { permissions, retry, tools } = config;
  if (config.askUser !== undefined && typeof config.askUser !== 'boolean') {
    refuse('askUser', 'a boolean', config.askUser);
  }
  if (config.output !== undefined) {
    const problem = outputSpecProblem(config.output, [
      ...(tools ?? []).map((tool) => tool.name),
      ...(config.askUser === true ? [ASK_USER_TOOL] : []),
    ]);
    if (problem !== null) throw new AgentStatechartError('INVALID_CONFIG', problem);
  }
  if (permissions !== undefined) {
    if (typeof permissions !== 'object' || permissions === null) {
      refuse('permissions', "an object such as { mode: 'acceptEdits' }", permissions);
    }
    if (!PERMISSION_MODES.includes(permissions.mode)) {
      refuse('permissions.mode', `one of ${PERMISSION_MODES.join(', ')}`, permissions.mode);
    }
    for (const list of ['allow', 'deny'] as const) {
      const names = permissions[list];
      if (
        names !== undefined &&
        (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))
      ) {
        refuse(`permissions.${list}`, 'an array of tool names', names);
      }
      for (const rule of names ?? []) {
        const problem = toolRuleProblem(list, rule);
        if (problem !== null) throw new AgentStatechartError('INVALID_CONFIG', problem);
      }
    }
  }
  if (retry !== undefined) {
    if (typeof retry !== 'object' || retry === null) refuse('retry', 'an object', retry);
    for (const field of ['baseDelayMs', 'factor', 'maxDelayMs'] as const) {
      const value = retry[field];
      if (value !== undefined && !isNonNegativeNumber(value)) {
        refuse(`retry.${field}`, 'a finite, non-negative number', value);
      }
    }
    if (retry.seed !== undefined && !Number.isInteger(retry.seed)) {
      refuse('retry.seed', 'a whole number', retry.seed);
    }
  }
  const { maxTurns, maxBudgetUsd, pricing } = config;
  if (
    maxTurns !== undefined &&
    maxTurns !== null &&
    !(Number.isInteger(maxTurns) && maxTurns >= 1)
  ) {
    refuse('maxTurns', 'a whole number of at least 1, or null for no limit', maxTurns);
  }
  if (
    maxBudgetUsd !== undefined &&
    !(typeof maxBudgetUsd === 'number' && Number.isFinite(maxBudgetUsd) && maxBudgetUsd > 0)
  ) {
    refuse('maxBudgetUsd', 'a positive number of US dollars', maxBudgetUsd);
  }
  if (pricing !== undefined) {
    if (typeof pricing !== 'object' || pricing === null)
      refuse('pricing', 'an object of prices by model id', pricing);
    for (const [model, price] of Object.entries(pricing)) {
      for (const field of ['input', 'output', 'cacheWrite', 'cacheRead'] as const) {
        const value = (price as Partial<ModelPrice> | null)?.[field];
        if (!isNonNegativeNumber(value)) {
          refuse(
            `pricing['${model}'].${field}`,
            'a non-negative number of US dollars per million tokens',
            value,
          );
        }
      }
    }
  }
  const names = new Set<string>();
  if (tools !== undefined) {
    if (!Array.isArray(tools)) refuse('tools', 'an array of tool specs', tools);
    for (const tool of tools) {
      if (
        typeof tool !== 'object' ||
        tool === null ||
        typeof tool.name !== 'string' ||
        tool.name === ''
      ) {
        refuse('each of tools', "a spec with a name, such as { name: 'read_file' }", tool);
      }
    }
    for (const { name } of tools) {
      if (names.has(name)) {
        throw new AgentStatechartError(
          'DUPLICATE_TOOL',
          `tool '${name}' is configured twice; tool names must be unique`,
        );
      }
      names.add(name);
    }
    if (config.agents !== undefined && names.has(SUBAGENT_TOOL)) {
      throw new AgentStatechartError(
        'DUPLICATE_TOOL',
        `tool '${SUBAGENT_TOOL}' is the built-in subagent tool when agents are configured; name yours otherwise`,
      );
    }
    if (config.askUser === true && names.has(ASK_USER_TOOL)) {
      throw new AgentStatechartError(
        'DUPLICATE_TOOL',
        `tool '${ASK_USER_TOOL}' is the built-in question tool when askUser is on; name yours otherwise, or leave askUser off`,
      );
    }
  }
  checkAgents(config.agents, names, refuse);
  const compaction = resolveCompaction(config.compaction, refuse);
  return { maxRetries, maxTokens, toolGraceMs, request, compaction };
}

/** Each subagent: a name the API takes, a description, tools the parent has. */
function checkAgents(agents: AgentConfig['agents'], tools: ReadonlySet<string>, refuse: Refuse) {
  if (agents === undefined) return;
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents)) {
    refuse('agents', 'an object of subagent specs by name', agents);
  }
  if (Object.keys(agents).length === 0) refuse('agents', 'at least one subagent', agents);
  for (const [name, spec] of Object.entries(agents)) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      refuse(`the name of agents['${name}']`, 'letters, digits, _ and - (at most 64)', name);
    }
    const at = `agents['${name}']`;
    if (typeof spec !== 'object' || spec === null) refuse(at, 'an object { description, … }', spec);
    if (typeof spec.description !== 'string' || spec.description.trim() === '') {
      refuse(`${at}.description`, 'a non-empty string (the model reads it)', spec.description);
    }
    for (const field of ['system', 'model'] as const) {
      if (spec[field] !== undefined && typeof spec[field] !== 'string') {
        refuse(`${at}.${field}`, 'a string', spec[field]);
      }
    }
    if (spec.maxTurns !== undefined && !(Number.isInteger(spec.maxTurns) && spec.maxTurns >= 1)) {
      refuse(`${at}.maxTurns`, 'a whole number of at least 1', spec.maxTurns);
    }
    if (spec.tools !== undefined) {
      if (!Array.isArray(spec.tools))
        refuse(`${at}.tools`, "an array of the agent's tool names", spec.tools);
      for (const tool of spec.tools) {
        if (!tools.has(tool)) {
          refuse(
            `${at}.tools`,
            `names of the parent's tools (a subagent's tools are some of its parent's)`,
            tool,
          );
        }
      }
    }
  }
}

/** Defaults of the chart's config, filled in by `resolveConfig`. */
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_MAX_TOKENS = 4096;
export const DEFAULT_TOOL_GRACE_MS = 5_000;

/** What {@link checkConfig} checked and resolves, the request fields as a plain-JSON copy. */
export interface CheckedConfig {
  maxRetries: number;
  maxTokens: number;
  toolGraceMs: number;
  request: Record<string, unknown> | undefined;
  compaction: ResolvedCompaction | null;
}

/**
 * A value as an error message shows it, cut to a short length: strings quoted, the rest as JSON
 * would write them.
 */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${clip(value)}'`;
  // JSON writes NaN and Infinity as null, which would name the wrong value.
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  try {
    // JSON has no word for undefined, a function or a symbol: their type says enough.
    return clip(JSON.stringify(value) ?? typeof value);
  } catch {
    return typeof value;
  }
}

type Refuse = (field: string, expected: string, got: unknown) => never;

const PROMPT_CACHE_POLICIES: readonly string[] = ['auto', 'off'] satisfies PromptCachePolicy[];

/**
 * Fields of the request the chart sets from its own state or options: the `request` option may
 * not set them, and the option to use instead.
 */
const CHART_REQUEST_FIELDS: Readonly<Record<string, string>> = {
  model: 'model',
  max_tokens: 'maxTokens',
  messages: 'the transcript',
  system: 'system',
  tools: 'tools',
  stream: 'the chart (every call streams)',
  container: 'the chart (the container a response named)',
};

function checkSystem(system: AgentConfig['system'], refuse: Refuse): void {
  if (system === undefined) return;
  if (typeof system === 'string') {
    if (system === '') refuse('system', 'a non-empty string or text blocks', system);
    return;
  }
  if (!Array.isArray(system) || system.length === 0) {
    refuse('system', 'a non-empty string or an array of text blocks', system);
  }
  system.forEach((block, index) => {
    const ok =
      typeof block === 'object' &&
      block !== null &&
      block.type === 'text' &&
      typeof block.text === 'string' &&
      block.text !== '';
    if (!ok) refuse(`system[${index}]`, "a text block such as { type: 'text', text: '…' }", block);
    const mark = block.cache_control;
    if (
      mark !== undefined &&
      (mark?.type !== 'ephemeral' || !['5m', '1h', undefined].includes(mark.ttl))
    ) {
      refuse(
        `system[${index}].cache_control`,
        "{ type: 'ephemeral' }, with ttl '5m' or '1h' if any",
        mark,
      );
    }
  });
}

function checkRequestFields(
  request: AgentConfig['request'],
  maxTokens: number,
  refuse: Refuse,
): Record<string, unknown> | undefined {
  if (request === undefined) return undefined;
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    refuse('request', 'an object of Messages API request fields', request);
  }
  for (const field of Object.keys(request)) {
    const instead = CHART_REQUEST_FIELDS[field];
    if (instead !== undefined) {
      throw new AgentStatechartError(
        'INVALID_CONFIG',
        `request.${field} is set by ${instead}, not by the request option`,
      );
    }
  }
  const copied = copyPlainJson(request, 'request');
  if (!copied.ok) {
    throw new AgentStatechartError(
      'INVALID_CONFIG',
      `${copied.problem}: the request option must be plain JSON`,
    );
  }
  const { betas } = request as { betas?: unknown };
  if (
    betas !== undefined &&
    !(
      Array.isArray(betas) &&
      betas.every((beta) => typeof beta === 'string' && /^[^,\s]+$/.test(beta))
    )
  ) {
    refuse('request.betas', "an array of beta names such as ['context-1m-2025-08-07']", betas);
  }
  const thinking = request.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (thinking?.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (!(
      typeof budget === 'number' &&
      Number.isInteger(budget) &&
      budget >= 1024 &&
      budget < maxTokens
    )) {
      refuse(
        'request.thinking.budget_tokens',
        `a whole number of at least 1024 and below maxTokens (${maxTokens})`,
        budget,
      );
    }
  }
  return copied.value as Record<string, unknown>;
}
