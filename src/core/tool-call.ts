/** Seed §8: the one provider-neutral shape of a call the model asked for. */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: unknown;
  providerMetadata: Record<string, unknown> | null;
}

export const toolCallStatuses = [
  'REQUESTED',
  'AWAITING_APPROVAL',
  'APPROVED',
  'DENIED',
  'STARTED',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
] as const;
export type ToolCallStatus = (typeof toolCallStatuses)[number];
