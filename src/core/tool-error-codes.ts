import type { ToolError, ToolErrorKind } from './tool-result.js';

/** The parts of the server a code comes from: the headings of docs/errors.md, in this order. */
export const toolErrorSources = {
  lifecycle: 'The call lifecycle, whatever tool is called',
  bridges: 'Extension and MCP bridges',
  chat: 'Chat tools',
  skill: 'Skill tools',
  worldinfo: 'World-info tools',
  files: 'Workspace tools: files and checkpoints',
  paths: 'Workspace tools: paths',
  patches: 'Workspace tools: patches (workspace.apply_patch)',
} as const;

export interface ToolErrorCodeEntry {
  source: keyof typeof toolErrorSources;
  /** Every class a failed call with this code is given; more than one only where the meaning says when. */
  kinds: readonly [ToolErrorKind, ...ToolErrorKind[]];
  meaning: string;
}

/**
 * Every code the server itself gives a failed call, spelled once with its class (seed §11) and what it
 * means: clients and models match on these (GraphQL `ToolError.code`, journal payloads, the
 * `structured.error` a model reads). docs/errors.md is generated from this table (`npm run errors:print`).
 * A tool defined outside the server's families may name its own code (see `OwnErrorCode`).
 */
export const toolErrorCodes = {
  unknown_tool: {
    source: 'lifecycle',
    kinds: ['POLICY_DENIED', 'RECOVERABLE'],
    meaning:
      'No registered tool has this name: POLICY_DENIED when requested by name (`requestToolCall`), RECOVERABLE when a model response names a tool neither offered nor registered.',
  },
  tool_not_available: {
    source: 'lifecycle',
    kinds: ['POLICY_DENIED'],
    meaning:
      'Policy does not let this caller call the tool (denied, disabled, outside the plan node, USER_ONLY for an agent, allowed by no rule); the message names the deciding rule.',
  },
  invalid_arguments: {
    source: 'lifecycle',
    kinds: ['RECOVERABLE'],
    meaning:
      "The arguments do not match the tool's input schema, are not a JSON object, are too large, or a service refused them.",
  },
  budget_exhausted: {
    source: 'lifecycle',
    kinds: ['RECOVERABLE'],
    meaning: "The run's call budget for the tool is used up (for `skill.read`: its character budget).",
  },
  approval_denied: {
    source: 'lifecycle',
    kinds: ['POLICY_DENIED'],
    meaning: 'A person denied the call; the result names them and carries their reason and feedback.',
  },
  approval_expired: {
    source: 'lifecycle',
    kinds: ['RECOVERABLE'],
    meaning:
      'Nobody decided on the call within its approval timeout; it did not run, and it may be asked again.',
  },
  cancelled: {
    source: 'lifecycle',
    kinds: ['RECOVERABLE'],
    meaning:
      'The call was cancelled before it finished: with its run, or by the MCP host whose request made it (notifications/cancelled through the gateway).',
  },
  timeout: {
    source: 'lifecycle',
    kinds: ['RECOVERABLE'],
    meaning: "The tool did not answer within the call's timeout and was abandoned.",
  },
  interrupted: {
    source: 'lifecycle',
    kinds: ['SYSTEM_FAILURE'],
    meaning:
      'The process running the call stopped before it finished (its lease ran out); a tool with effects outside the database may have partly run.',
  },
  tool_unavailable: {
    source: 'lifecycle',
    kinds: ['RECOVERABLE'],
    meaning: 'No executor can run the tool now (for example an MCP tool of a server nobody configured).',
  },
  tool_crashed: {
    source: 'lifecycle',
    kinds: ['SYSTEM_FAILURE'],
    meaning: 'The tool threw an unexpected error; the details are in the server log.',
  },
  invalid_output: {
    source: 'lifecycle',
    kinds: ['RECOVERABLE'],
    meaning:
      "The tool's output does not match its output schema (or an MCP tool with one sent no structured content).",
  },
  schema_mismatch: {
    source: 'lifecycle',
    kinds: ['SYSTEM_FAILURE'],
    meaning:
      "Arguments that passed the tool's JSON Schema failed its own parser: the tool's schema and code disagree.",
  },
  not_found: {
    source: 'lifecycle',
    kinds: ['RECOVERABLE'],
    meaning: 'What the arguments name does not exist (or is not visible to this run): a resource, a record.',
  },
  extension_not_connected: {
    source: 'bridges',
    kinds: ['RECOVERABLE'],
    meaning:
      'The extension that answers the tool is not connected, so the call was refused before it was queued.',
  },
  extension_disconnected: {
    source: 'bridges',
    kinds: ['RECOVERABLE'],
    meaning: 'The extension disconnected before it answered; it may or may not have acted on the call.',
  },
  mcp_not_connected: {
    source: 'bridges',
    kinds: ['RECOVERABLE'],
    meaning: "The tool's MCP server is configured but not connected now.",
  },
  mcp_tool_not_offered: {
    source: 'bridges',
    kinds: ['RECOVERABLE'],
    meaning: 'The MCP server no longer offers the tool.',
  },
  mcp_connection_lost: {
    source: 'bridges',
    kinds: ['RECOVERABLE'],
    meaning: 'The connection to the MCP server broke during the call.',
  },
  mcp_protocol_error: {
    source: 'bridges',
    kinds: ['RECOVERABLE'],
    meaning:
      'The MCP server refused the call with a JSON-RPC error (its code in `structured.error.jsonRpcCode`) or sent a malformed result.',
  },
  upstream_credential_missing: {
    source: 'bridges',
    kinds: ['RECOVERABLE'],
    meaning:
      "The tool's MCP server acts for each user with their own credential and the run's user has none that can be used (never set, or the token exchanged for it expired); the message says how the person connects it.",
  },
  upstream_credential_rejected: {
    source: 'bridges',
    kinds: ['RECOVERABLE'],
    meaning:
      "The MCP server answered 401 or 403 to the user's own credential; the message says how the person connects a new one.",
  },
  upstream_credential_unreadable: {
    source: 'bridges',
    kinds: ['RECOVERABLE'],
    meaning:
      "The user's stored credential does not decrypt with CREDENTIALS_KEY (its key id is not held, or the key under that id differs); an admin fixes the key, or the user sets the credential again.",
  },
  no_chat: {
    source: 'chat',
    kinds: ['RECOVERABLE'],
    meaning: 'The run is not attached to a chat, so there is no history to read.',
  },
  chat_not_found: {
    source: 'chat',
    kinds: ['RECOVERABLE'],
    meaning: "The run's chat has not been imported into the server.",
  },
  invalid_cursor: {
    source: 'chat',
    kinds: ['RECOVERABLE'],
    meaning: 'The paging cursor is not one a chat history tool returned.',
  },
  cursor_from_other_chat: {
    source: 'chat',
    kinds: ['RECOVERABLE'],
    meaning: "The paging cursor belongs to another chat than the run's.",
  },
  skill_not_found: {
    source: 'skill',
    kinds: ['RECOVERABLE'],
    meaning: 'No skill of that name is visible to the run; the message lists the ones that are.',
  },
  section_not_found: {
    source: 'skill',
    kinds: ['RECOVERABLE'],
    meaning: 'The skill file has no heading of that name; the message lists its headings.',
  },
  budget_exceeded: {
    source: 'skill',
    kinds: ['RECOVERABLE'],
    meaning: "The read asks for more characters than one call or the run's remaining budget allows.",
  },
  no_activation: {
    source: 'worldinfo',
    kinds: ['RECOVERABLE'],
    meaning: 'No world info has been activated for the run or its chat yet.',
  },
  unknown_ref: {
    source: 'worldinfo',
    kinds: ['RECOVERABLE'],
    meaning: 'A requested entry is not in the latest activation.',
  },
  no_workspace: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'The run has no workspace.',
  },
  file_not_found: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'The file does not exist (in the workspace, a patch, or a skill folder).',
  },
  file_exists: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'Mode `create` names a file that already exists.',
  },
  file_too_large: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'The write would make a file larger than a workspace file may be; nothing was written.',
  },
  is_directory: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'The path names a folder, not a file.',
  },
  parent_is_file: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'A folder on the path is a file.',
  },
  not_text: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'The file or resource is not UTF-8 text, so it cannot be read as text.',
  },
  invalid_range: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'The requested lines or offset lie outside the file or resource.',
  },
  stale_write: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'The file changed since the run read it (or does not have the expected hash): read it again.',
  },
  read_required: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'Overwriting a file the run has not read: read it first.',
  },
  manifest_incomplete: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning:
      '`workspace.finish`: required output files are missing or empty (listed in `structured.missing`).',
  },
  checkpoint_not_found: {
    source: 'files',
    kinds: ['RECOVERABLE'],
    meaning: 'The workspace has no checkpoint of that number.',
  },
  path_escape: {
    source: 'paths',
    kinds: ['SYSTEM_FAILURE'],
    meaning:
      'The path leaves the workspace (absolute, drive, URL, `..`, encoded traversal): the run fails; the message names the rule.',
  },
  path_not_visible: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: "The path is outside the folders the run's profile may see.",
  },
  path_not_writable: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: "The path is outside the folders the run's profile may write.",
  },
  path_empty: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: 'The path is empty or names the workspace root.',
  },
  path_control: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: 'The path contains a control or invisible formatting character.',
  },
  path_lookalike: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: "The path contains a character that looks like '.', '/', '\\' or ':'; plain ASCII is asked for.",
  },
  path_compatibility: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning:
      'The path contains a compatibility form (a fullwidth letter, a ligature, …) whose NFKC form differs, so it would read as another path than it is; the plain form is asked for.',
  },
  path_backslash: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: "The path contains a backslash; folders are separated with '/'.",
  },
  path_reserved_char: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: 'The path contains one of `< > : " | ? *`, which file names cannot hold.',
  },
  path_reserved_name: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: 'A name on the path is reserved on Windows (CON, NUL, COM1, …).',
  },
  path_trailing_dot_or_space: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: 'A name on the path ends with a dot or a space.',
  },
  path_segment_too_long: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: 'A name on the path is longer than a file system allows.',
  },
  path_too_long: {
    source: 'paths',
    kinds: ['RECOVERABLE'],
    meaning: 'The whole path is longer than the limit.',
  },
  empty_patch: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning: 'The patch is empty or has no file operations.',
  },
  missing_begin_marker: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning: 'The patch does not start with `*** Begin Patch`.',
  },
  missing_end_marker: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning: 'The patch does not end with `*** End Patch`.',
  },
  invalid_hunk_header: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning:
      'A line where a file operation should start is not `*** Add File:`, `*** Delete File:` or `*** Update File:`.',
  },
  invalid_hunk_line: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning: "A line of a hunk starts with neither ' ', '+' nor '-'.",
  },
  missing_path: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning: 'A file operation names no path.',
  },
  empty_update: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning: 'An `*** Update File:` section has no hunk (and no move).',
  },
  empty_hunk: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning: 'A hunk has no lines.',
  },
  context_not_found: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning: "A hunk's `@@` context line is not in the file.",
  },
  lines_not_found: {
    source: 'patches',
    kinds: ['RECOVERABLE'],
    meaning: "A hunk's old lines are not in the file as written.",
  },
} as const satisfies Record<string, ToolErrorCodeEntry>;

export type BuiltInErrorCode = keyof typeof toolErrorCodes;

export const builtInErrorCodes = Object.keys(toolErrorCodes) as BuiltInErrorCode[];

/** The codes the table gives class K: a tool may throw a code only in a class it is listed under. */
export type ErrorCodeOfKind<K extends ToolErrorKind> = {
  [C in BuiltInErrorCode]: K extends (typeof toolErrorCodes)[C]['kinds'][number] ? C : never;
}[BuiltInErrorCode];

/** A code that is not the server's: named explicitly so that a typo of a built-in one cannot pass as it. */
export interface OwnErrorCode {
  own: string;
}

/** An error result the server words itself: its code is one the table lists under its kind. */
export type BuiltInToolError<Kind extends ToolErrorKind = ToolErrorKind> = {
  [K in Kind]: ToolError & { kind: K; code: ErrorCodeOfKind<K> };
}[Kind];
