import { z } from 'zod';
import { actorOf } from '../../core/auth.js';
import { badInput } from '../../core/errors.js';
import { builder, scopes } from '../../graphql/builder.js';
import { upperValues } from '../../graphql/enums.js';
import type { CheckpointView, WorkspaceView } from './reader.js';
import { decodeText } from './rules/content.js';
import { type FileDiff, fileChangeKinds } from './rules/diff.js';
import { MAX_INPUT_FILES } from './rules/inputs.js';
import { checkWorkspacePath } from './rules/paths.js';
import type { WorkspaceRoot } from './rules/roots.js';
import { type TreeEntry, treeEntryKinds, treeLevel } from './rules/tree.js';
import { checkpointReasons } from './tables.js';
import type { ManifestEntry, WorkspaceDiff, WorkspaceFileRow } from './types.js';

/** A folder argument: '' or absent is the whole workspace; anything else must pass the path rules. */
function folderArg(raw: string | null | undefined): string | null {
  const trimmed = (raw ?? '').replace(/\/+$/, '');
  if (trimmed === '') return null;
  const checked = checkWorkspacePath(trimmed);
  if (!checked.ok) throw badInput(checked.message, { field: 'prefix', reason: checked.code });
  return checked.path;
}

const CheckpointReasonEnum = builder.enumType('WorkspaceCheckpointReason', {
  description:
    'What made a checkpoint: a file WRITE or PATCH, a RESTORE, an IMPORT, a MANUAL create_checkpoint, or FINISH.',
  values: upperValues(checkpointReasons),
});
const FileChangeEnum = builder.enumType('WorkspaceFileChange', {
  description: 'How a file differs between the two ends of a diff.',
  values: upperValues(fileChangeKinds),
});
const TreeEntryKindEnum = builder.enumType('WorkspaceTreeEntryKind', {
  description: 'FILE or FOLDER.',
  values: upperValues(treeEntryKinds),
});

const WorkspaceRootType = builder.objectRef<WorkspaceRoot>('WorkspaceRoot').implement({
  description: 'A folder tools may see; `writable` when they may also write there.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'The root folder, such as `output` or `inputs`.' }),
    writable: t.exposeBoolean('writable', { description: 'Tools may write inside it (`inputs` never is).' }),
  }),
});

const WorkspaceFileType = builder.objectRef<WorkspaceFileRow>('WorkspaceFile').implement({
  description: 'A current file of a workspace.',
  fields: (t) => ({
    path: t.exposeString('path', {
      description: 'Its path inside the workspace, such as `output/chapter-1.md`.',
    }),
    size: t.exposeInt('size', { description: 'Bytes.' }),
    sha256: t.exposeString('sha256', {
      description: 'sha256 of its content, in hex; pass it as `expectedHash` to write safely.',
    }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed.', type: 'DateTime' }),
  }),
});

const ManifestEntryType = builder.objectRef<ManifestEntry>('WorkspaceManifestEntry').implement({
  description: 'A file as a checkpoint recorded it.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'Its path inside the workspace.' }),
    size: t.exposeInt('size', { description: 'Bytes.' }),
    sha256: t.exposeString('sha256', { description: 'sha256 of its content, in hex.' }),
  }),
});

const TreeEntryType = builder.objectRef<TreeEntry>('WorkspaceTreeEntry').implement({
  description: 'A file or folder directly inside the listed folder.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'Its full path inside the workspace.' }),
    name: t.exposeString('name', { description: 'Its last path segment.' }),
    kind: t.expose('kind', { description: 'File or folder.', type: TreeEntryKindEnum }),
    size: t.exposeInt('size', { description: 'Bytes of the file, or of all files inside the folder.' }),
    fileCount: t.exposeInt('fileCount', {
      description: '1 for a file; the files inside a folder, at any depth.',
    }),
  }),
});

const FileContentType = builder
  .objectRef<ManifestEntry & { content: Buffer }>('WorkspaceFileContent')
  .implement({
    description: 'A file with its content, now or at a checkpoint.',
    fields: (t) => ({
      path: t.exposeString('path', { description: 'Its path inside the workspace.' }),
      size: t.exposeInt('size', { description: 'Bytes.' }),
      sha256: t.exposeString('sha256', { description: 'sha256 of its content, in hex.' }),
      text: t.string({
        nullable: true,
        description: 'The content as text; null when it is not UTF-8 (then read `base64`).',
        resolve: (file) => decodeText(file.content),
      }),
      base64: t.string({
        description: 'The content as base64, for any file.',
        resolve: (file) => file.content.toString('base64'),
      }),
    }),
  });

const CheckpointType = builder.objectRef<CheckpointView>('WorkspaceCheckpoint').implement({
  description: 'An immutable snapshot of every file of a workspace: path → content hash.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The checkpoint id.' }),
    number: t.exposeInt('number', { description: '1, 2, 3… per workspace, without gaps.' }),
    reason: t.expose('reason', { description: 'What made it.', type: CheckpointReasonEnum }),
    label: t.exposeString('label', {
      description: 'A label given with create_checkpoint; null when none.',
      nullable: true,
    }),
    restoredFrom: t.exposeID('restoredFrom', {
      nullable: true,
      description: 'The checkpoint a RESTORE brought back.',
    }),
    runId: t.exposeID('runId', {
      description: 'The run that made it; null for imports and other changes outside runs.',
      nullable: true,
    }),
    callId: t.exposeID('callId', {
      description: 'The tool call that made it; null when no call did.',
      nullable: true,
    }),
    createdBy: t.exposeString('createdBy', { description: 'The actor that made it.' }),
    fileCount: t.exposeInt('fileCount', { description: 'Files it holds.' }),
    totalBytes: t.exposeFloat('totalBytes', {
      description: 'Bytes of all its files (a Float, since it may pass 2^31).',
    }),
    createdAt: t.expose('createdAt', { description: 'When it was made.', type: 'DateTime' }),
    files: t.field({
      description: 'Every file it records, in path order (for an agent: those its runs see).',
      type: [ManifestEntryType],
      resolve: (checkpoint, _args, ctx) => ctx.services.workspaces.reader.manifest(checkpoint),
    }),
  }),
});

const FileDiffType = builder.objectRef<FileDiff>('WorkspaceFileDiff').implement({
  description: 'One file that differs between the two ends of a diff.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'Its path inside the workspace.' }),
    change: t.expose('change', { description: 'Added, modified or deleted.', type: FileChangeEnum }),
    oldSha256: t.exposeString('oldSha256', {
      description: 'Its hash at `from`; null when it was added.',
      nullable: true,
    }),
    newSha256: t.exposeString('newSha256', {
      description: 'Its hash at `to`; null when it was deleted.',
      nullable: true,
    }),
  }),
});

const DiffType = builder
  .objectRef<Omit<WorkspaceDiff, 'from' | 'to'> & { from: CheckpointView | null; to: CheckpointView | null }>(
    'WorkspaceDiff',
  )
  .implement({
    description:
      'What changed between two states of a workspace. A DiffRef content part names its ends in `fromRef` and `toRef`.',
    fields: (t) => ({
      from: t.expose('from', {
        type: CheckpointType,
        nullable: true,
        description: 'Null: the empty workspace.',
      }),
      to: t.expose('to', { type: CheckpointType, nullable: true, description: 'Null: the current files.' }),
      files: t.expose('files', {
        description: 'The files that differ, in path order.',
        type: [FileDiffType],
      }),
      unified: t.exposeString('unified', { description: 'The changes as a unified diff (git diff format).' }),
    }),
  });

const WorkspaceType = builder.objectRef<WorkspaceView>('Workspace').implement({
  description: 'Files a run works on, stored in the database, with checkpoints of every change.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The workspace id runs name in `workspaceId`.' }),
    ownerUserId: t.exposeString('ownerUserId', {
      description:
        'The user whose runs may use it; null when it belongs to nobody (only runs without a user use it).',
      nullable: true,
    }),
    roots: t.field({
      description:
        'The root folders and whether tools may write in them; for an agent, the folders its runs see.',
      type: [WorkspaceRootType],
      resolve: (workspace, _args, ctx) => ctx.services.workspaces.reader.roots(workspace),
    }),
    createdAt: t.expose('createdAt', { description: 'When it was first written to.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When it last changed.', type: 'DateTime' }),
    files: t.field({
      type: [WorkspaceFileType],
      description:
        'Current files in path order, all or those inside the folder `prefix` (for an agent: those its runs see).',
      args: {
        prefix: t.arg.string({
          description: 'A folder inside the workspace; absent or empty for all files.',
        }),
      },
      resolve: (workspace, args, ctx) =>
        ctx.services.workspaces.reader.files(workspace, folderArg(args.prefix)),
    }),
    tree: t.field({
      type: [TreeEntryType],
      description:
        'One level of the folder tree: the files and folders directly inside `prefix` (the top when absent).',
      args: { prefix: t.arg.string({ description: 'The folder to list; absent or empty for the top.' }) },
      resolve: async (workspace, args, ctx) => {
        const folder = folderArg(args.prefix);
        return treeLevel(await ctx.services.workspaces.reader.files(workspace, folder), folder ?? '');
      },
    }),
    file: t.field({
      type: FileContentType,
      nullable: true,
      description:
        'One file with its content, now or at a checkpoint (id or number); null when it does not exist or an agent may not see it.',
      args: {
        path: t.arg.string({ description: 'The file path inside the workspace.', required: true }),
        checkpoint: t.arg.id({ description: 'A checkpoint id or number; absent for the current content.' }),
      },
      resolve: (workspace, args, ctx) =>
        ctx.services.workspaces.reader.file(
          workspace,
          args.path,
          args.checkpoint ? String(args.checkpoint) : null,
        ),
    }),
    checkpoints: t.field({
      type: [CheckpointType],
      description: 'Every checkpoint, oldest first.',
      resolve: (workspace, _args, ctx) => ctx.services.workspaces.reader.checkpoints(workspace),
    }),
    checkpoint: t.field({
      description: 'One checkpoint by id or number; null when there is none.',
      type: CheckpointType,
      nullable: true,
      args: { id: t.arg.id({ required: true, description: 'A checkpoint id, or its number.' }) },
      resolve: (workspace, args, ctx) =>
        ctx.services.workspaces.reader.checkpoint(workspace, String(args.id)),
    }),
    diff: t.field({
      type: DiffType,
      description:
        'Changes from one checkpoint to another (id or number). Without `from`: from the empty workspace; without `to`: to the current files.',
      args: {
        from: t.arg.id({
          description: 'The older checkpoint (id or number); absent for the empty workspace.',
        }),
        to: t.arg.id({ description: 'The newer checkpoint (id or number); absent for the current files.' }),
      },
      resolve: (workspace, args, ctx) =>
        ctx.services.workspaces.reader.diff(
          workspace,
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
      "A workspace by id (a run names it in `workspaceId`); null when there is none or the caller may not read it: people read their users' workspaces, agents their user's that their runs name (and only the files those runs see). Every role but EXTENSION.",
    authScopes: { ...scopes.readers, host: true },
    args: { id: t.arg.id({ description: 'The workspace id.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.workspaces.reader.get(ctx.principal!, String(args.id)),
  }),
}));

const WorkspaceInputFileInput = builder.inputType('WorkspaceInputFile', {
  description: 'A file to put into a read-only root: its content as `text` or as `base64`, not both.',
  fields: (t) => ({
    path: t.string({ required: true, description: 'Its full path, such as `inputs/brief.md`.' }),
    text: t.string({ description: 'The content as UTF-8 text.' }),
    base64: t.string({ description: 'The content as base64, for any bytes.' }),
  }),
});

const inputFileSchema = z
  .object({
    path: z.string().min(1).max(4096),
    text: z.string().nullish(),
    base64: z
      .string()
      .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'not base64')
      .nullish(),
  })
  .refine((file) => (file.text == null) !== (file.base64 == null), {
    message: 'give the content as text or as base64, exactly one of them',
  });

const WorkspaceInputsResultType = builder
  .objectRef<{ workspace: WorkspaceView; checkpoint: CheckpointView; paths: string[] }>(
    'WorkspaceInputsResult',
  )
  .implement({
    description: 'Files put into a workspace as one checkpointed change.',
    fields: (t) => ({
      workspace: t.expose('workspace', {
        type: WorkspaceType,
        description: 'The workspace after the change.',
      }),
      checkpoint: t.expose('checkpoint', {
        type: CheckpointType,
        description: 'The IMPORT checkpoint the change made.',
      }),
      paths: t.exposeStringList('paths', {
        description: 'The files written, normalised, in the order given.',
      }),
    }),
  });

builder.mutationFields((t) => ({
  putWorkspaceInputs: t.field({
    type: WorkspaceInputsResultType,
    description: `Puts files into a workspace's read-only roots (\`inputs/\` by default), where runs read them and cannot change them: all or none, as one IMPORT checkpoint journaled with the caller as actor, at most ${MAX_INPUT_FILES} files per call. A path that breaks the path rules or lies outside a read-only root is BAD_USER_INPUT naming the file's index; a workspace of a user the token is not bound to is NOT_FOUND; a workspace that does not exist is created for \`ownerUserId\`. ADMIN and HOST.`,
    authScopes: { admin: true, host: true },
    args: {
      workspaceId: t.arg.id({ description: 'The workspace.', required: true }),
      files: t.arg({
        description: `The files, 1 to ${MAX_INPUT_FILES}.`,
        type: [WorkspaceInputFileInput],
        required: true,
        validate: { schema: z.array(inputFileSchema).min(1).max(MAX_INPUT_FILES) },
      }),
      ownerUserId: t.arg.string({
        description: 'The user a new workspace is created for; an existing one must already be theirs.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const workspaces = ctx.services.workspaces;
      const workspaceId = String(args.workspaceId);
      const { checkpoint, changed } = await workspaces.admin.putInputs(
        ctx.principal!,
        workspaces.admin.operatorSession(workspaceId, actorOf(ctx.principal)),
        args.files.map((file) => ({
          path: file.path,
          content:
            file.base64 != null ? Buffer.from(file.base64, 'base64') : Buffer.from(file.text ?? '', 'utf8'),
        })),
        args.ownerUserId ?? null,
      );
      const workspace = (await workspaces.reader.get(ctx.principal!, workspaceId))!;
      return { workspace, checkpoint: { ...checkpoint, access: null }, paths: changed.map((c) => c.path) };
    },
  }),
  setWorkspaceOwner: t.field({
    type: WorkspaceType,
    description:
      'Gives a workspace to another user (null: to nobody); from then on only runs of that user may name it. ADMIN only.',
    authScopes: scopes.admin,
    args: {
      id: t.arg.id({ description: 'The workspace id.', required: true }),
      userId: t.arg.string({ description: 'The new owner; null for nobody.' }),
    },
    resolve: async (_root, args, ctx) => ({
      ...(await ctx.services.workspaces.store.setOwner(String(args.id), args.userId ?? null)),
      access: null,
    }),
  }),
}));
