import type { ToolError } from './tool-result.js';

/**
 * Every code the server itself gives a failed call, spelled once: clients and models match on
 * these (GraphQL `ToolError.code`, journal payloads, the `structured.error` a model reads). A tool
 * defined outside the server's families may name its own (see `OwnErrorCode`).
 */
export const builtInErrorCodes = [
  // The call lifecycle, whatever tool is called.
  'unknown_tool',
  'tool_not_available',
  'invalid_arguments',
  'budget_exhausted',
  'approval_denied',
  'approval_expired',
  'cancelled',
  'timeout',
  'interrupted',
  'tool_unavailable',
  'tool_crashed',
  'invalid_output',
  'schema_mismatch',
  'not_found',
  // Extension and MCP bridges.
  'extension_not_connected',
  'extension_disconnected',
  'mcp_not_connected',
  'mcp_tool_not_offered',
  'mcp_connection_lost',
  'mcp_protocol_error',
  // Chat tools.
  'no_chat',
  'chat_not_found',
  'invalid_cursor',
  'cursor_from_other_chat',
  // Skill tools.
  'skill_not_found',
  'section_not_found',
  'budget_exceeded',
  // World-info tools.
  'no_activation',
  'unknown_ref',
  // Workspace tools: files and checkpoints.
  'no_workspace',
  'file_not_found',
  'file_exists',
  'file_too_large',
  'is_directory',
  'parent_is_file',
  'not_text',
  'invalid_range',
  'stale_write',
  'read_required',
  'manifest_incomplete',
  'checkpoint_not_found',
  // Workspace tools: paths (an escape fails the run; the rest the model can fix).
  'path_escape',
  'path_not_visible',
  'path_not_writable',
  'path_empty',
  'path_control',
  'path_lookalike',
  'path_compatibility',
  'path_backslash',
  'path_reserved_char',
  'path_reserved_name',
  'path_trailing_dot_or_space',
  'path_segment_too_long',
  'path_too_long',
  // Workspace tools: patches.
  'empty_patch',
  'missing_begin_marker',
  'missing_end_marker',
  'invalid_hunk_header',
  'invalid_hunk_line',
  'missing_path',
  'empty_update',
  'empty_hunk',
  'context_not_found',
  'lines_not_found',
] as const;

export type BuiltInErrorCode = (typeof builtInErrorCodes)[number];

/** A code that is not the server's: named explicitly so that a typo of a built-in one cannot pass as it. */
export interface OwnErrorCode {
  own: string;
}

/** An error result the server words itself. */
export type BuiltInToolError = ToolError & { code: BuiltInErrorCode };
