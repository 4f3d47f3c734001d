import type { CallOutcome } from '../providers/types.js';

/** Seed §9 PromptComponentKind: what a prompt is assembled from. */
export const promptComponentKinds = [
  'SYSTEM',
  /** The chat's character: its description, personality and scenario, macros substituted. */
  'CHARACTER',
  'CHAT_HISTORY',
  'WORLD_INFO',
  'WORKSPACE_FILES',
  'TOOL_RESULTS',
  /** The task an agent run was started with (startAgentRun): the last block of the context. */
  'PROMPT',
] as const;
export type PromptComponentKind = (typeof promptComponentKinds)[number];

/** What happens when a component is over its token budget. */
export const overflowRules = ['TRUNCATE', 'SUMMARIZE', 'DROP', 'FAIL'] as const;
export type OverflowRule = (typeof overflowRules)[number];

export const toolResultForms = ['RAW', 'SUMMARY'] as const;
export type ToolResultForm = (typeof toolResultForms)[number];

export interface PromptComponent {
  kind: PromptComponentKind;
  /** Where the content came from: `preset`, `chat:<id>`, `worldinfo:<activation id>`, `workspace:<id>`, `run:<id>`. */
  source: string;
  tokenBudget: number;
  /** Higher is more important; over the total budget, optional components go lowest first. */
  priority: number;
  required: boolean;
  overflow: OverflowRule;
  content: string;
  /** o200k tokens of `content`. */
  tokens: number;
  /** Tokens before the overflow rule applied. */
  originalTokens: number;
  /** The rule that changed the content, or null when it fitted. */
  applied: OverflowRule | null;
}

export interface DroppedComponent {
  kind: PromptComponentKind;
  source: string;
  tokens: number;
  budget: number;
  /** `component_budget`: over its own budget with rule DROP; `total_budget`: over the frame's. */
  reason: 'component_budget' | 'total_budget';
}

/** One finished call of the run as the model reads it in this frame. */
export interface ToolResultEntry {
  callId: string;
  providerCallId: string | null;
  name: string;
  status: string;
  form: ToolResultForm;
  text: string;
  isError: boolean;
  /** The text was cut to fit the budget (a marker says how much). */
  truncated: boolean;
  /** Over budget and left out of the component; its native answer carries only the marker. */
  omitted: boolean;
}

export interface ContextFrame {
  runId: string;
  preset: string | null;
  components: PromptComponent[];
  dropped: DroppedComponent[];
  /** The entries of the TOOL_RESULTS component; empty when the preset does not show tool results. */
  toolResults: ToolResultEntry[];
  /** False when the preset has no TOOL_RESULTS component, or it was dropped. */
  toolResultsVisible: boolean;
  totalBudget: number | null;
  totalTokens: number;
}

// What the runtime gathers for assembly; every piece is optional because a run may have no chat,
// no activation or no workspace.

export interface ChatSource {
  source: string;
  messages: Array<{ name: string; text: string }>;
}

/** SillyTavern's `extension_prompt_roles`: what an @depth entry is sent as. */
export const depthRoles = ['system', 'user', 'assistant'] as const;

export interface WorldInfoSource {
  source: string;
  /** In prompt order; `atDepth` entries go into the chat history, `depth` messages from its end. */
  entries: Array<{ name: string; content: string; atDepth: boolean; depth: number; role: number }>;
}

export interface CharacterSource {
  source: string;
  name: string;
  description: string;
  personality: string;
  scenario: string;
}

export interface WorkspaceSource {
  source: string;
  files: Array<{ path: string; text: string }>;
}

export interface ToolCallSource {
  callId: string;
  providerCallId: string | null;
  name: string;
  status: string;
  /** Keyed by the provider call id when there is one, else by the call id. */
  outcome: CallOutcome;
}

export interface ContextSources {
  runId: string;
  chat: ChatSource | null;
  character: CharacterSource | null;
  worldInfo: WorldInfoSource | null;
  workspace: WorkspaceSource | null;
  toolCalls: ToolCallSource[];
  /** The agent run's prompt; null for runs a client drives itself. */
  prompt: string | null;
}
