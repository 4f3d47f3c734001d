import { DomainError } from '../../core/errors.js';
import { countTokens } from '../../core/tokens.js';
import { type Fitted, headAndTail, keepHead, keepTail } from './fit.js';
import type { ContextPreset } from './preset.js';
import { entriesTokens, entryOf, fitEntries, renderEntries } from './tool-results.js';
import type {
  ContextFrame,
  ContextSources,
  DroppedComponent,
  OverflowRule,
  PromptComponent,
  PromptComponentKind,
  ToolResultEntry,
} from './types.js';
import { depthRoles } from './types.js';

type PresetComponent = ContextPreset['components'][number];

const DEFAULT_PRIORITY = 50;
const DEFAULT_CHAT_MESSAGES = 50;

function budgetExceeded(
  what: string,
  details: { kind: PromptComponentKind | 'TOTAL'; tokens: number; budget: number },
): DomainError {
  return new DomainError(
    'CONTEXT_BUDGET_EXCEEDED',
    `${what} has ${details.tokens} tokens, over its budget of ${details.budget}, and the preset says FAIL`,
    details,
  );
}

const underFolder = (path: string, wanted: string) =>
  wanted.endsWith('/') ? path.startsWith(wanted) : path === wanted;

type WorldInfoEntry = NonNullable<ContextSources['worldInfo']>['entries'][number];

const roleName = (role: number) => depthRoles[role] ?? 'system';

/**
 * SillyTavern's @depth world info: entries of one depth and role are joined by a newline into one
 * injection (its `customDepthWI-<depth>-<role>` prompt), placed `depth` messages before the end of
 * the chat (0: after the last message), and sent with its role; here a line `[<role>] <text>`.
 */
function withDepthEntries(lines: string[], entries: readonly WorldInfoEntry[]): string[] {
  const groups = new Map<string, { depth: number; role: number; texts: string[] }>();
  for (const entry of entries) {
    const depth = Math.max(0, Math.trunc(entry.depth));
    const key = `${depth}:${entry.role}`;
    const group = groups.get(key) ?? { depth, role: entry.role, texts: [] };
    group.texts.push(entry.content);
    groups.set(key, group);
  }
  const result = [...lines];
  // Deepest first, so each insertion counts its depth from the end of the real messages.
  const ordered = [...groups.values()].sort((a, b) => b.depth - a.depth || a.role - b.role);
  for (const group of ordered) {
    const at = Math.max(0, lines.length - group.depth);
    const before = result.length - (lines.length - at);
    result.splice(before, 0, `[${roleName(group.role)}] ${group.texts.join('\n')}`);
  }
  return result;
}

/** Whether the frame shows the chat, so that @depth entries go into it rather than the world-info block. */
const chatHostsDepthEntries = (preset: ContextPreset, sources: ContextSources) =>
  sources.chat !== null && preset.components.some((c) => c.kind === 'CHAT_HISTORY');

function characterText(character: NonNullable<ContextSources['character']>): string {
  // SillyTavern's default story string: description, "<char>'s personality: …", "Scenario: …".
  return [
    `Character: ${character.name}`,
    character.description,
    character.personality === '' ? '' : `${character.name}'s personality: ${character.personality}`,
    character.scenario === '' ? '' : `Scenario: ${character.scenario}`,
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** The raw text of one component, before any budget. */
function rawContent(
  c: PresetComponent,
  sources: ContextSources,
  depthInChat: boolean,
): { source: string; text: string } | null {
  switch (c.kind) {
    case 'CHARACTER':
      if (!sources.character) return null;
      return { source: sources.character.source, text: characterText(sources.character) };
    case 'CHAT_HISTORY': {
      if (!sources.chat) return null;
      const messages = sources.chat.messages.slice(-(c.maxMessages ?? DEFAULT_CHAT_MESSAGES));
      const lines = messages.map((m) => `${m.name}: ${m.text}`);
      const atDepth = sources.worldInfo?.entries.filter((e) => e.atDepth) ?? [];
      return { source: sources.chat.source, text: withDepthEntries(lines, atDepth).join('\n') };
    }
    case 'WORLD_INFO': {
      if (!sources.worldInfo) return null;
      const shown = sources.worldInfo.entries.filter((e) => !(e.atDepth && depthInChat));
      return {
        source: sources.worldInfo.source,
        text: shown
          .map((e) =>
            e.atDepth
              ? `[${e.name}] (at depth ${e.depth}, ${roleName(e.role)}; no chat history in this context)\n${e.content}`
              : `[${e.name}]\n${e.content}`,
          )
          .join('\n\n'),
      };
    }
    case 'WORKSPACE_FILES': {
      if (!sources.workspace) return null;
      const wanted = c.paths ?? [];
      const files = sources.workspace.files.filter((f) => wanted.some((w) => underFolder(f.path, w)));
      return {
        source: sources.workspace.source,
        text: files.map((f) => `=== ${f.path} ===\n${f.text}`).join('\n\n'),
      };
    }
    case 'TOOL_RESULTS':
      return null;
  }
}

/** Chat history keeps its newest messages; other text keeps its beginning. */
function fitText(
  kind: PromptComponentKind,
  rule: 'TRUNCATE' | 'SUMMARIZE',
  text: string,
  budget: number,
): Fitted {
  if (rule === 'SUMMARIZE') return headAndTail(text, budget);
  return kind === 'CHAT_HISTORY' ? keepTail(text, budget) : keepHead(text, budget);
}

interface Built {
  component: PromptComponent;
  entries: ToolResultEntry[] | null;
}

/**
 * What a component ends up holding: its text and where it came from, its size before and after
 * fitting, and the rule that fitted it.
 */
interface Content {
  source: string;
  content: string;
  originalTokens: number;
  applied: OverflowRule | null;
  /** Counted from `content` unless given. */
  tokens?: number;
}

function component(
  c: PresetComponent,
  { source, content, originalTokens, applied, tokens = countTokens(content) }: Content,
): PromptComponent {
  return {
    kind: c.kind,
    source,
    tokenBudget: c.tokenBudget,
    priority: c.priority ?? DEFAULT_PRIORITY,
    required: c.required ?? false,
    overflow: c.overflow ?? 'TRUNCATE',
    content,
    tokens,
    originalTokens,
    applied,
  };
}

/** One component under its own budget, or null when its source is missing or it is dropped. */
function build(
  c: PresetComponent,
  sources: ContextSources,
  dropped: DroppedComponent[],
  depthInChat: boolean,
): Built | null {
  const rule = c.overflow ?? 'TRUNCATE';
  const isTools = c.kind === 'TOOL_RESULTS';
  const raw = isTools ? { source: `run:${sources.runId}`, text: '' } : rawContent(c, sources, depthInChat);
  if (raw === null) return null;
  const entries = isTools ? sources.toolCalls.map((s) => entryOf(s, c.form ?? 'RAW')) : null;
  const text = entries ? renderEntries(entries) : raw.text;
  const tokens = entries ? entriesTokens(entries) : countTokens(text);
  if (tokens <= c.tokenBudget)
    return {
      component: component(c, {
        source: raw.source,
        content: text,
        originalTokens: tokens,
        applied: null,
        tokens,
      }),
      entries,
    };
  if (rule === 'FAIL')
    throw budgetExceeded(`the ${c.kind} component`, { kind: c.kind, tokens, budget: c.tokenBudget });
  if (rule === 'DROP') {
    dropped.push({
      kind: c.kind,
      source: raw.source,
      tokens,
      budget: c.tokenBudget,
      reason: 'component_budget',
    });
    return null;
  }
  if (entries) {
    const fitted = fitEntries(entries, sources.toolCalls, c.tokenBudget, rule);
    return {
      component: component(c, {
        source: raw.source,
        content: renderEntries(fitted.entries),
        originalTokens: tokens,
        applied: fitted.applied,
        tokens: entriesTokens(fitted.entries),
      }),
      entries: fitted.entries,
    };
  }
  const fitted = fitText(c.kind, rule, text, c.tokenBudget);
  return {
    component: component(c, {
      source: raw.source,
      content: fitted.text,
      originalTokens: tokens,
      applied: rule,
    }),
    entries: null,
  };
}

/**
 * Seed §9: the prompt components of a run, in the preset's order, each within its own budget and
 * all within the total. Over the total, optional components go lowest priority first (the later
 * one first on a tie); if the required ones alone do not fit, assembly fails.
 */
export function assembleFrame(preset: ContextPreset, sources: ContextSources): ContextFrame {
  const dropped: DroppedComponent[] = [];
  const built: Built[] = [];
  if (preset.system) {
    const tokens = countTokens(preset.system);
    built.push({
      component: {
        kind: 'SYSTEM',
        source: 'preset',
        tokenBudget: tokens,
        priority: Number.MAX_SAFE_INTEGER,
        required: true,
        overflow: 'FAIL',
        content: preset.system,
        tokens,
        originalTokens: tokens,
        applied: null,
      },
      entries: null,
    });
  }
  const depthInChat = chatHostsDepthEntries(preset, sources);
  for (const c of preset.components) {
    const one = build(c, sources, dropped, depthInChat);
    if (one) built.push(one);
  }

  if (sources.prompt !== null) {
    // The task itself, never cut or dropped: a model given part of its task would do something else.
    const tokens = countTokens(sources.prompt);
    built.push({
      component: {
        kind: 'PROMPT',
        source: `run:${sources.runId}`,
        tokenBudget: tokens,
        priority: Number.MAX_SAFE_INTEGER,
        required: true,
        overflow: 'FAIL',
        content: sources.prompt,
        tokens,
        originalTokens: tokens,
        applied: null,
      },
      entries: null,
    });
  }

  const total = () => built.reduce((sum, b) => sum + b.component.tokens, 0);
  if (preset.totalBudget != null) {
    const candidates = built
      .map((b, order) => ({ b, order }))
      .filter(({ b }) => !b.component.required)
      .sort((x, y) => x.b.component.priority - y.b.component.priority || y.order - x.order);
    for (const { b } of candidates) {
      if (total() <= preset.totalBudget) break;
      built.splice(built.indexOf(b), 1);
      dropped.push({
        kind: b.component.kind,
        source: b.component.source,
        tokens: b.component.tokens,
        budget: preset.totalBudget,
        reason: 'total_budget',
      });
    }
    if (total() > preset.totalBudget) {
      throw budgetExceeded('the context frame', {
        kind: 'TOTAL',
        tokens: total(),
        budget: preset.totalBudget,
      });
    }
  }

  const tools = built.find((b) => b.entries !== null);
  return {
    runId: sources.runId,
    preset: preset.name ?? null,
    components: built.map((b) => b.component),
    dropped,
    toolResults: tools?.entries ?? [],
    toolResultsVisible: tools !== undefined,
    totalBudget: preset.totalBudget ?? null,
    totalTokens: total(),
  };
}
