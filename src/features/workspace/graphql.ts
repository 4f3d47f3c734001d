import { badInput } from '../../core/errors.js';
import { checkpointReasons } from '../../db/schema.js';
import { builder, scopes } from '../../graphql/builder.js';
import { decodeText } from './rules/content.js';
import type { FileDiff } from './rules/diff.js';
import { checkWorkspacePath } from './rules/paths.js';
import type { WorkspaceRoot } from './rules/roots.js';
import { type TreeEntry, treeLevel } from './rules/tree.js';
import type {
  CheckpointRow,
  ManifestEntry,
  WorkspaceDiff,
  WorkspaceFileRow,
  WorkspaceRow,
} from './service.js';

/** A folder argument: '' or absent is the whole workspace; anything else must pass the path rules. */
function folderArg(raw: string | null | undefined): string | null {
  const trimmed = (raw ?? '').replace(/\/+$/, '');
  if (trimmed === '') return null;
  const checked = checkWorkspacePath(trimmed);
  if (!checked.ok) throw badInput(checked.message, { field: 'prefix', reason: checked.code });
  return checked.path;
}

const upperValues = <T extends string>(values: readonly T[]) =>
  Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }])) as {
    [K in Uppercase<T>]: { value: Lowercase<K> & T };
  };

const CheckpointReasonEnum = builder.enumType('WorkspaceCheckpointReason', {
  values: upperValues(checkpointReasons),
});
const FileChangeEnum = builder.enumType('WorkspaceFileChange', {
  values: upperValues(['added', 'modified', 'deleted'] as const),
});
const TreeEntryKindEnum = builder.enumType('WorkspaceTreeEntryKind', {
  values: upperValues(['file', 'folder'] as const),
});

const WorkspaceRootType = builder.objectRef<WorkspaceRoot>('WorkspaceRoot').implement({
  description: 'A folder tools may see; `writable` when they may also write there.',
  fields: (t) => ({
    path: t.exposeString('path'),
    writable: t.exposeBoolean('writable'),
  }),
});

const WorkspaceFileType = builder.objectRef<WorkspaceFileRow>('WorkspaceFile').implement({
  fields: (t) => ({
    path: t.exposeString('path'),
    size: t.exposeInt('size', { description: 'Bytes.' }),
    sha256: t.exposeString('sha256'),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const ManifestEntryType = builder.objectRef<ManifestEntry>('WorkspaceManifestEntry').implement({
  description: 'A file as a checkpoint recorded it.',
  fields: (t) => ({
    path: t.exposeString('path'),
    size: t.exposeInt('size'),
    sha256: t.exposeString('sha256'),
  }),
});

const TreeEntryType = builder.objectRef<TreeEntry>('WorkspaceTreeEntry').implement({
  description: 'A file or folder directly inside the listed folder.',
  fields: (t) => ({
    path: t.exposeString('path'),
    name: t.exposeString('name'),
    kind: t.expose('kind', { type: TreeEntryKindEnum }),
    size: t.exposeInt('size', { description: 'Bytes of the file, or of all files inside the folder.' }),
    fileCount: t.exposeInt('fileCount', {
      description: '1 for a file; the files inside a folder, at any depth.',
    }),
  }),
});

const FileContentType = builder
  .objectRef<ManifestEntry & { content: Buffer }>('WorkspaceFileContent')
  .implement({
    fields: (t) => ({
      path: t.exposeString('path'),
      size: t.exposeInt('size'),
      sha256: t.exposeString('sha256'),
      text: t.string({
        nullable: true,
        description: 'The content as text; null when it is not UTF-8 (then read `base64`).',
        resolve: (file) => decodeText(file.content),
      }),
      base64: t.string({ resolve: (file) => file.content.toString('base64') }),
    }),
  });

const CheckpointType = builder.objectRef<CheckpointRow>('WorkspaceCheckpoint').implement({
  description: 'An immutable snapshot of every file of a workspace: path → content hash.',
  fields: (t) => ({
    id: t.exposeID('id'),
    number: t.exposeInt('number', { description: '1, 2, 3… per workspace, without gaps.' }),
    reason: t.expose('reason', { type: CheckpointReasonEnum }),
    label: t.exposeString('label', { nullable: true }),
    restoredFrom: t.exposeID('restoredFrom', {
      nullable: true,
      description: 'The checkpoint a RESTORE brought back.',
    }),
    runId: t.exposeID('runId', { nullable: true }),
    callId: t.exposeID('callId', { nullable: true }),
    createdBy: t.exposeString('createdBy'),
    fileCount: t.exposeInt('fileCount'),
    totalBytes: t.exposeFloat('totalBytes'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    files: t.field({
      type: [ManifestEntryType],
      resolve: (checkpoint, _args, ctx) => ctx.services.workspaces.manifest(checkpoint.id),
    }),
  }),
});

const FileDiffType = builder.objectRef<FileDiff>('WorkspaceFileDiff').implement({
  fields: (t) => ({
    path: t.exposeString('path'),
    change: t.expose('change', { type: FileChangeEnum }),
    oldSha256: t.exposeString('oldSha256', { nullable: true }),
    newSha256: t.exposeString('newSha256', { nullable: true }),
  }),
});

const DiffType = builder.objectRef<WorkspaceDiff>('WorkspaceDiff').implement({
  description:
    'What changed between two states of a workspace. A DiffRef content part names its ends in `fromRef` and `toRef`.',
  fields: (t) => ({
    from: t.expose('from', {
      type: CheckpointType,
      nullable: true,
      description: 'Null: the empty workspace.',
    }),
    to: t.expose('to', { type: CheckpointType, nullable: true, description: 'Null: the current files.' }),
    files: t.expose('files', { type: [FileDiffType] }),
    unified: t.exposeString('unified', { description: 'The changes as a unified diff (git diff format).' }),
  }),
});

const WorkspaceType = builder.objectRef<WorkspaceRow>('Workspace').implement({
  description: 'Files a run works on, stored in the database, with checkpoints of every change.',
  fields: (t) => ({
    id: t.exposeID('id'),
    roots: t.expose('roots', { type: [WorkspaceRootType] }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    files: t.field({
      type: [WorkspaceFileType],
      description: 'Current files in path order, all or those inside the folder `prefix`.',
      args: { prefix: t.arg.string() },
      resolve: (workspace, args, ctx) => ctx.services.workspaces.files(workspace.id, folderArg(args.prefix)),
    }),
    tree: t.field({
      type: [TreeEntryType],
      description:
        'One level of the folder tree: the files and folders directly inside `prefix` (the top when absent).',
      args: { prefix: t.arg.string() },
      resolve: async (workspace, args, ctx) => {
        const folder = folderArg(args.prefix);
        return treeLevel(await ctx.services.workspaces.files(workspace.id, folder), folder ?? '');
      },
    }),
    file: t.field({
      type: FileContentType,
      nullable: true,
      description:
        'One file with its content, now or at a checkpoint (id or number); null when it does not exist.',
      args: { path: t.arg.string({ required: true }), checkpoint: t.arg.id() },
      resolve: (workspace, args, ctx) =>
        ctx.services.workspaces.fileContent(
          workspace.id,
          args.path,
          args.checkpoint ? String(args.checkpoint) : null,
        ),
    }),
    checkpoints: t.field({
      type: [CheckpointType],
      description: 'Every checkpoint, oldest first.',
      resolve: (workspace, _args, ctx) => ctx.services.workspaces.checkpoints(workspace.id),
    }),
    checkpoint: t.field({
      type: CheckpointType,
      nullable: true,
      args: { id: t.arg.id({ required: true, description: 'A checkpoint id, or its number.' }) },
      resolve: (workspace, args, ctx) => ctx.services.workspaces.checkpoint(workspace.id, String(args.id)),
    }),
    diff: t.field({
      type: DiffType,
      description:
        'Changes from one checkpoint to another (id or number). Without `from`: from the empty workspace; without `to`: to the current files.',
      args: { from: t.arg.id(), to: t.arg.id() },
      resolve: (workspace, args, ctx) =>
        ctx.services.workspaces.diff(
          workspace.id,
          args.from ? String(args.from) : null,
          args.to ? String(args.to) : null,
        ),
    }),
  }),
});

builder.queryFields((t) => ({
  workspace: t.field({
    type: WorkspaceType,
    nullable: true,
    description:
      'A workspace by id (a run names it in `workspaceId`); null until something is written to it.',
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.workspaces.get(String(args.id)),
  }),
}));
