import { and, desc, eq, notInArray, sql } from 'drizzle-orm';
import { openCallStatuses, type RunService } from '../../calls/index.js';
import { type RunRow, toolCalls } from '../../calls/tables.js';
import { actorOf, type Principal } from '../../core/auth.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { badInput, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import type { ChatService } from '../../features/chat/index.js';
import { decodeText, type Workspaces } from '../../features/workspace/index.js';
import {
  substituteMacros,
  WORLD_INFO_POSITION,
  type WorldInfoService,
} from '../../features/worldinfo/index.js';
import { appendEvents } from '../../journal/append.js';
import { journalEvents } from '../../journal/tables.js';
import { outcomeOf } from '../call-outcomes.js';
import { assembleFrame } from './assemble.js';
import { type ContextPreset, contextPresetSchema, namedPreset } from './preset.js';
import type {
  CharacterSource,
  ChatSource,
  ContextFrame,
  ContextSources,
  ToolCallSource,
  WorkspaceSource,
  WorldInfoSource,
} from './types.js';

/** Files read for WORKSPACE_FILES at most; the budget decides how much of them is shown. */
const MAX_WORKSPACE_FILES = 200;
/**
 * Characters of workspace text read into a frame, per file and in all. Tokenizing is synchronous
 * (about 600 characters per millisecond), and no preset budget shows more than a small part of this.
 */
const MAX_FILE_CHARS = 256 * 1024;
const MAX_WORKSPACE_CHARS = 1024 * 1024;
/** Newest finished calls considered for TOOL_RESULTS. */
const MAX_TOOL_RESULTS = 500;

/** Where a run's prompt comes from (the agent loop's jobs); runs without one have none. */
export interface RunPrompts {
  promptOf(runId: string): Promise<string | null>;
}

/** Where a run's context comes from: the run itself, its chat, world info, workspace files and prompt. */
export interface ContextDeps {
  db: Db;
  runs: RunService;
  chats: ChatService;
  worldInfo: WorldInfoService;
  workspaces: Workspaces;
  /** Runs without a source of prompts have none. */
  prompts?: RunPrompts;
}

export interface PresetChoice {
  preset?: unknown;
  presetName?: string | null;
}

/** A preset given inline wins over a name; neither means the built-in `default`. */
export function choosePreset(choice: PresetChoice): ContextPreset {
  if (choice.preset != null && choice.presetName != null)
    throw badInput('give either preset or presetName, not both', { field: 'preset' });
  if (choice.preset != null) return parseInput(contextPresetSchema, choice.preset);
  return namedPreset(choice.presetName ?? 'default');
}

/**
 * Seed §9 ContextAssemblyService: gathers what a run's prompt may contain (its chat, the latest
 * world-info activation, chosen workspace files, its tool results), assembles the frame with the
 * preset, and journals every component it had to drop.
 */
export class ContextService {
  private readonly db: Db;
  private readonly runs: RunService;
  private readonly chats: ChatService;
  private readonly worldInfo: WorldInfoService;
  private readonly workspaces: Workspaces;
  private readonly prompts: RunPrompts;

  constructor({
    db,
    runs,
    chats,
    worldInfo,
    workspaces,
    prompts = { promptOf: async () => null },
  }: ContextDeps) {
    this.db = db;
    this.runs = runs;
    this.chats = chats;
    this.worldInfo = worldInfo;
    this.workspaces = workspaces;
    this.prompts = prompts;
  }

  async requireRun(runId: string, principal: Principal): Promise<RunRow> {
    const run = await this.runs.get(runId, principal);
    if (!run) throw notFound(`no run ${runId}`);
    return run;
  }

  async frame(runId: string, choice: PresetChoice, principal: Principal): Promise<ContextFrame> {
    const preset = choosePreset(choice);
    const run = await this.requireRun(runId, principal);
    return this.frameFor(run, preset, principal);
  }

  async frameFor(run: RunRow, preset: ContextPreset, principal: Principal): Promise<ContextFrame> {
    const kinds = new Set(preset.components.map((c) => c.kind));
    const chatComponent = preset.components.find((c) => c.kind === 'CHAT_HISTORY');
    const sources: ContextSources = {
      runId: run.id,
      chat: kinds.has('CHAT_HISTORY') ? await this.chat(run, chatComponent?.maxMessages ?? 50) : null,
      character: kinds.has('CHARACTER') ? await this.character(run) : null,
      worldInfo: kinds.has('WORLD_INFO') ? await this.activation(run) : null,
      workspace: kinds.has('WORKSPACE_FILES')
        ? await this.workspace(run, preset.components.find((c) => c.kind === 'WORKSPACE_FILES')?.paths ?? [])
        : null,
      toolCalls: kinds.has('TOOL_RESULTS') ? await this.finishedCalls(run.id) : [],
      prompt: await this.prompts.promptOf(run.id),
    };
    const frame = assembleFrame(preset, sources);
    if (frame.dropped.length > 0 && principal.role !== 'VIEWER')
      await this.recordDrops(run, frame, principal);
    return frame;
  }

  /**
   * A drop is journaled once per run for the same component in the same state under the same
   * preset: assembling the same frame again (every model request does) adds nothing new. A VIEWER
   * only looks: its frames are previews that never reach a model, so they write nothing.
   */
  private async recordDrops(run: RunRow, frame: ContextFrame, principal: Principal): Promise<void> {
    const actor = actorOf(principal);
    await this.db.transaction(async (tx) => {
      // Not the run's row lock: a frame is read while calls run, and only drop records need ordering.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`context-drops:${run.id}`}))`);
      const seen = await tx
        .select({ payload: journalEvents.payload })
        .from(journalEvents)
        .where(and(eq(journalEvents.runId, run.id), eq(journalEvents.type, 'context_component_dropped')));
      const recorded = new Set(seen.map((e) => canonicalJson(e.payload)));
      const fresh = frame.dropped
        .map((d) => ({ ...d, preset: frame.preset }))
        .filter((payload) => !recorded.has(canonicalJson(payload)));
      await appendEvents(
        tx,
        fresh.map((payload) => ({
          type: 'context_component_dropped' as const,
          runId: run.id,
          actor,
          payload,
        })),
      );
    });
  }

  private async chat(run: RunRow, maxMessages: number): Promise<ChatSource | null> {
    if (!run.chatId || !(await this.chats.get(run.chatId))) return null;
    const page = await this.chats.history(run.chatId, { limit: maxMessages, maxChars: 50_000 });
    return {
      source: `chat:${run.chatId}`,
      messages: page.messages.map((m) => ({ name: m.name, text: m.text })),
    };
  }

  private async activation(run: RunRow): Promise<WorldInfoSource | null> {
    const latest = await this.worldInfo.latestActivation({ runId: run.id, chatId: run.chatId });
    if (!latest) return null;
    return {
      source: `worldinfo:${latest.id}`,
      entries: latest.entries.map((e) => ({
        name: e.name || e.ref,
        content: e.content,
        atDepth: e.position === WORLD_INFO_POSITION.atDepth,
        depth: e.depth,
        role: e.role,
      })),
    };
  }

  /** The run's chat's character, its text with SillyTavern's macros substituted as ST would send it. */
  private async character(run: RunRow): Promise<CharacterSource | null> {
    if (!run.chatId) return null;
    const { character, macros } = await this.worldInfo.roleplay(run.chatId);
    if (!character) return null;
    const substitute = (text: string) => substituteMacros(text, macros);
    return {
      source: `character:${character.id}`,
      name: character.name,
      description: substitute(character.description),
      personality: substitute(character.personality),
      scenario: substitute(character.scenario),
    };
  }

  /** Only what the run's profile may see of its workspace, and only text files. */
  private async workspace(run: RunRow, wanted: readonly string[]): Promise<WorkspaceSource | null> {
    if (!run.workspaceId || !(await this.workspaces.store.get(run.workspaceId))) return null;
    const chosen = (await this.workspaces.sessions.visibleFiles(run.workspaceId, run.profileId))
      .filter((f) => wanted.some((w) => (w.endsWith('/') ? f.path.startsWith(w) : f.path === w)))
      .slice(0, MAX_WORKSPACE_FILES);
    const files: WorkspaceSource['files'] = [];
    let left = MAX_WORKSPACE_CHARS;
    for (const file of chosen) {
      if (left <= 0) break;
      const entry = await this.workspaces.store.fileContent(run.workspaceId, file.path);
      const text = entry ? decodeText(entry.content) : null;
      if (text === null) continue;
      const limit = Math.min(MAX_FILE_CHARS, left);
      const shown =
        text.length <= limit
          ? text
          : `${text.slice(0, limit)}\n[… ${text.length - limit} more characters of ${file.path} not read]`;
      left -= Math.min(text.length, limit);
      files.push({ path: file.path, text: shown });
    }
    return { source: `workspace:${run.workspaceId}`, files };
  }

  /** Finished calls, oldest first: open calls have nothing to show yet. */
  async finishedCalls(runId: string): Promise<ToolCallSource[]> {
    const newest = await this.db
      .select()
      .from(toolCalls)
      // An EDITED call shows as the call that ran instead.
      .where(and(eq(toolCalls.runId, runId), notInArray(toolCalls.status, [...openCallStatuses, 'EDITED'])))
      .orderBy(desc(toolCalls.requestedAt), desc(toolCalls.id))
      .limit(MAX_TOOL_RESULTS);
    return newest.reverse().map((row) => ({
      callId: row.id,
      providerCallId: row.providerCallId,
      name: row.name,
      status: row.status,
      outcome: outcomeOf(row, row.providerCallId ?? row.id),
    }));
  }
}
