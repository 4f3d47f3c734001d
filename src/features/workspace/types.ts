import type { NewJournalEvent } from '../../core/journal-event.js';
import type { Tx } from '../../db/tx.js';
import type { FileDiff } from './rules/diff.js';
import type { FileChange } from './rules/patch/types.js';
import type { ReadSelection } from './rules/read-range.js';
import type { WorkspaceRoot } from './rules/roots.js';
import type { workspaceCheckpoints, workspaceFiles, workspaces } from './tables.js';

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type WorkspaceFileRow = typeof workspaceFiles.$inferSelect;
export type CheckpointRow = typeof workspaceCheckpoints.$inferSelect;
export type ManifestEntry = Pick<WorkspaceFileRow, 'path' | 'sha256' | 'size'>;

export type WorkspaceJournal = (
  events: Omit<NewJournalEvent, 'runId' | 'callId' | 'actor'>[],
) => Promise<void>;
export type WorkspaceTransaction = <T>(work: (tx: Tx, journal: WorkspaceJournal) => Promise<T>) => Promise<T>;

/**
 * Who works in which workspace, and the transaction their changes commit in: a tool call's own
 * (its journal events carry the run and call) or, for operators, one the service opens itself.
 */
export interface WorkspaceSession {
  workspaceId: string;
  profileId: string | null;
  runId: string | null;
  callId: string | null;
  actor: string;
  transaction: WorkspaceTransaction;
}

export interface CheckpointRef {
  id: string;
  number: number;
}

export interface ChangedFile {
  path: string;
  kind: FileChange['kind'];
  from?: string;
  /** Absent for a deleted file. */
  sha256?: string;
  size?: number;
}

export const writeModes = ['create', 'replace', 'append'] as const;
export type WriteMode = (typeof writeModes)[number];

export interface WriteInput {
  path: string;
  content: string;
  mode: WriteMode;
  expectedHash?: string | undefined;
}

export interface WriteResult {
  path: string;
  sha256: string;
  size: number;
  created: boolean;
  checkpoint: CheckpointRef;
}

export interface ListResult {
  roots: WorkspaceRoot[];
  files: ManifestEntry[];
  total: number;
  truncated: boolean;
}

export interface ReadResult extends ReadSelection {
  path: string;
  sha256: string;
  size: number;
}

export interface RestoreResult {
  restored: CheckpointRef;
  /** The checkpoint that was current before, so callers can show what the restore undid. */
  previous: CheckpointRef;
  changes: FileDiff[];
  checkpoint: CheckpointRef;
}

export interface FinishResult {
  artifacts: ManifestEntry[];
  checkpoint: CheckpointRef;
}

export interface WorkspaceDiff {
  from: CheckpointRow | null;
  to: CheckpointRow | null;
  files: FileDiff[];
  unified: string;
}

export interface ImportResult {
  imported: ChangedFile[];
  skipped: Array<{ path: string; reason: string }>;
  checkpoint: CheckpointRef | null;
}

export const refOf = (row: CheckpointRow): CheckpointRef => ({ id: row.id, number: row.number });
