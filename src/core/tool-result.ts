/** Seed §4: one result shape for every tool, whatever executed it. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'json'; value: unknown }
  | { type: 'image_ref'; uri: string; mimeType: string }
  | { type: 'audio_ref'; uri: string; mimeType: string }
  | { type: 'file_ref'; path: string; uri?: string | undefined; mimeType?: string | undefined }
  | { type: 'resource_ref'; uri: string; mimeType?: string | undefined; description?: string | undefined }
  | { type: 'diff_ref'; uri: string; fromRef?: string | undefined; toRef?: string | undefined };

export interface ToolUsage {
  outputTokens?: number | undefined;
  durationMs?: number | undefined;
}

export interface ToolResult {
  callId: string;
  content: ContentPart[];
  structured: unknown;
  isError: boolean;
  resourceRefs: string[];
  usage: ToolUsage | null;
}

/** Seed §11: three classes that are never mixed. */
export const toolErrorKinds = ['RECOVERABLE', 'POLICY_DENIED', 'SYSTEM_FAILURE'] as const;
export type ToolErrorKind = (typeof toolErrorKinds)[number];

export interface ToolError {
  kind: ToolErrorKind;
  code: string;
  message: string;
}
