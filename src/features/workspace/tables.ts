import { bigint, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { bytea, createdAt, tstz, updatedAt } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import type { WorkspaceRoot } from './rules/roots.js';

/**
 * Issue 4: workspaces live in Postgres so that a write, its checkpoint and its journal event
 * commit together and every server process sees the same files. Run ids are plain uuids without
 * a foreign key, as in the journal: imports and checkpoints made outside a run carry none.
 */

export const workspaces = pgTable('workspaces', {
  id: text('id').primaryKey(),
  roots: jsonb('roots').$type<WorkspaceRoot[]>().notNull(),
  /** The user whose runs may use it: the user of the run that created it, or named by an admin. */
  ownerUserId: text('owner_user_id'),
  /** The number of the newest checkpoint. Mutations lock this row, which also orders them. */
  lastCheckpoint: integer('last_checkpoint').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** File contents, stored once per sha256 whichever workspaces and checkpoints refer to them. */
export const workspaceBlobs = pgTable('workspace_blobs', {
  sha256: text('sha256').primaryKey(),
  size: integer('size').notNull(),
  content: bytea('content').notNull(),
  createdAt: createdAt(),
});

/** The current files of each workspace. Paths are normalised by `checkWorkspacePath`. */
export const workspaceFiles = pgTable(
  'workspace_files',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    path: text('path').notNull(),
    sha256: text('sha256')
      .notNull()
      .references(() => workspaceBlobs.sha256),
    size: integer('size').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.path] })],
);

export const checkpointReasons = ['write', 'patch', 'restore', 'import', 'manual', 'finish'] as const;
export type CheckpointReason = (typeof checkpointReasons)[number];

/** Immutable (a trigger refuses UPDATE and DELETE): restore and diff rely on history staying put. */
export const workspaceCheckpoints = pgTable(
  'workspace_checkpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    /** 1, 2, 3… per workspace, without gaps. */
    number: integer('number').notNull(),
    reason: text('reason', { enum: checkpointReasons }).notNull(),
    label: text('label'),
    /** Set when `reason` is `restore`: the checkpoint whose files were restored. */
    restoredFrom: uuid('restored_from'),
    runId: uuid('run_id'),
    callId: uuid('call_id'),
    createdBy: text('created_by').notNull(),
    fileCount: integer('file_count').notNull(),
    totalBytes: bigint('total_bytes', { mode: 'number' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('workspace_checkpoints_number_idx').on(t.workspaceId, t.number)],
);

/** A checkpoint's manifest: path → content hash, copied from the current files when it is made. */
export const workspaceCheckpointFiles = pgTable(
  'workspace_checkpoint_files',
  {
    checkpointId: uuid('checkpoint_id')
      .notNull()
      .references(() => workspaceCheckpoints.id),
    path: text('path').notNull(),
    sha256: text('sha256')
      .notNull()
      .references(() => workspaceBlobs.sha256),
    size: integer('size').notNull(),
  },
  (t) => [primaryKey({ columns: [t.checkpointId, t.path] })],
);

/**
 * What a run last saw of a file (by reading or writing it): the stale-write rule lets a run
 * replace a file only while its content is still the one recorded here.
 */
export const workspaceReads = pgTable(
  'workspace_reads',
  {
    runId: uuid('run_id').notNull(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    path: text('path').notNull(),
    sha256: text('sha256').notNull(),
    readAt: tstz('read_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.workspaceId, t.path] })],
);
