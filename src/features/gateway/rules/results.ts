import type { ContentPart, ToolResult } from '../../../core/tool-result.js';

/** The `_meta` key of a pending answer; clients that know it can wait without reading the text. */
export const APPROVAL_META_KEY = 'agent-tool-system/approval';

/** MCP's CallToolResult, as far as the gateway writes it (the SDK type is wider). */
export interface McpToolResult {
  [key: string]: unknown;
  content: McpContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string }
  | {
      type: 'resource';
      resource:
        | { uri: string; mimeType: string; text: string }
        | { uri: string; mimeType: string; blob: string };
    };

/** What the MCP bridge writes as the description of a resource an MCP server embedded (bridge/mcp/result-mapping.ts). */
const EMBEDDED = 'embedded resource ';

/** Bytes of stored resources the result may carry inline (images and audio), by URI. */
export type InlineBlobs = ReadonlyMap<string, { data: string; mimeType: string }>;

function blockOf(part: ContentPart, inline: InlineBlobs): McpContent {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'json':
      return { type: 'text', text: JSON.stringify(part.value) };
    case 'image_ref':
    case 'audio_ref': {
      const blob = inline.get(part.uri);
      if (blob) return { type: part.type === 'image_ref' ? 'image' : 'audio', ...blob };
      return { type: 'resource_link', uri: part.uri, name: part.uri, mimeType: part.mimeType };
    }
    case 'file_ref':
      return {
        type: 'resource_link',
        uri: part.uri ?? `file:${part.path}`,
        name: part.path,
        ...(part.mimeType ? { mimeType: part.mimeType } : {}),
      };
    case 'resource_ref': {
      const blob = inline.get(part.uri);
      // An MCP server's embedded resource, stored here by content hash, goes back embedded under its own URI.
      if (blob && part.description?.startsWith(EMBEDDED)) {
        const uri = part.description.slice(EMBEDDED.length);
        return {
          type: 'resource',
          resource: blob.mimeType.startsWith('text/')
            ? { uri, mimeType: blob.mimeType, text: Buffer.from(blob.data, 'base64').toString('utf8') }
            : { uri, mimeType: blob.mimeType, blob: blob.data },
        };
      }
      return {
        type: 'resource_link',
        uri: part.uri,
        name: part.description ?? part.uri,
        ...(part.mimeType ? { mimeType: part.mimeType } : {}),
        ...(part.description ? { description: part.description } : {}),
      };
    }
    case 'diff_ref':
      return { type: 'resource_link', uri: part.uri, name: 'diff', mimeType: 'text/x-diff' };
  }
}

/** The URIs of parts that `mcpResultOf` would inline if their bytes were given. */
export function inlineCandidates(result: ToolResult): string[] {
  return result.content.flatMap((p) =>
    p.type === 'image_ref' ||
    p.type === 'audio_ref' ||
    (p.type === 'resource_ref' && p.description?.startsWith(EMBEDDED))
      ? [p.uri]
      : [],
  );
}

/**
 * A call's result as MCP content. Structured output goes out only when it is an object (MCP's
 * structuredContent must be one); `notice` (an edit, say) is put first as text.
 */
export function mcpResultOf(result: ToolResult, inline: InlineBlobs, notice?: string): McpToolResult {
  const content = result.content.map((part) => blockOf(part, inline));
  if (notice) content.unshift({ type: 'text', text: notice });
  const structured = result.structured;
  return {
    content,
    ...(structured && typeof structured === 'object' && !Array.isArray(structured)
      ? { structuredContent: structured as Record<string, unknown> }
      : {}),
    ...(result.isError ? { isError: true } : {}),
  };
}

export function errorText(text: string): McpToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export interface PendingApproval {
  status: 'pending_approval';
  callId: string;
  consoleUrl: string;
  retryAfterMs: number;
  expiresAt: string | null;
}

/**
 * The answer to a call still waiting for a person when the hold ends. It is an error result on
 * purpose: MCP clients (the TypeScript SDK's among them) check structuredContent against a tool's
 * outputSchema only when isError is not set, and a pending answer has no structured output. The
 * model reads that nothing ran yet and what to do: call the same tool again with the same
 * arguments, or wait with the gateway's await tool.
 */
export function pendingResult(
  approval: Omit<PendingApproval, 'status'>,
  toolName: string,
  awaitTool: string | null,
): McpToolResult {
  const expires = approval.expiresAt ? ` It expires at ${approval.expiresAt} if nobody decides.` : '';
  const text =
    `This call is waiting for a person to approve it; it has not run yet.${expires} ` +
    `They decide it at ${approval.consoleUrl}. ` +
    `Call ${toolName} again with exactly the same arguments (after about ${Math.ceil(approval.retryAfterMs / 1000)} s) ` +
    `to wait for the decision and get the result${awaitTool ? `, or call ${awaitTool} with {"callId": "${approval.callId}"}` : ''}.`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { [APPROVAL_META_KEY]: { status: 'pending_approval', ...approval } satisfies PendingApproval },
  };
}

/** What a host sees of a call that ended without running, or with a lifecycle error. */
export function unranText(status: string, errorMessage: string | null, feedback: string | null): string {
  switch (status) {
    case 'DENIED':
      return feedback
        ? `A person denied this call. ${feedback}`
        : `A person denied this call${errorMessage ? `: ${errorMessage}` : '.'}`;
    case 'EXPIRED':
      return 'Nobody decided on this call before its approval expired, so it did not run. This is not a denial: you may ask again.';
    case 'CANCELLED':
      return `This call was cancelled before it ran${errorMessage ? `: ${errorMessage}` : '.'}`;
    default:
      return errorMessage ?? `The call ended ${status}.`;
  }
}

/** The notice put before the result of a call a person edited before approving it. */
export function editNotice(editedBy: string, args: unknown, reason: string | null): string {
  return (
    `Note: ${editedBy} edited this call's arguments before approving it; it ran with ${JSON.stringify(args)}` +
    `${reason ? ` (${reason})` : ''}.`
  );
}
