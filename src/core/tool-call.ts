import type { Principal } from './auth.js';

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
  'EXPIRED',
  'EDITED',
] as const;
export type ToolCallStatus = (typeof toolCallStatuses)[number];

/**
 * The person the company's IdP named on the request that decided (its `iss` and `sub`, and the name
 * people read). `decidedBy` says the role and name a journal actor has; this says who, for good.
 */
export interface DecidingPerson {
  issuer: string;
  subject: string;
  displayName: string;
}

/** The person behind a decision made with an IdP token; null for an API token, which names no person. */
export function personOf(principal: Principal): DecidingPerson | null {
  if (!principal.idp) return null;
  const { issuer, subject, displayName } = principal.idp;
  return { issuer, subject, displayName };
}

/** The one decision that counted on a call, stored with it. */
export interface DecisionRecord {
  approved: boolean;
  decidedBy: string;
  /** Who decided, as the IdP named them; null or absent when the decision came with an API token. */
  person?: DecidingPerson | null;
  reason: string | null;
  decidedAt: string;
  argumentsHash: string;
  /** A denial's text for the model ("Denied by <person>: <feedback>"); null or absent when none. */
  feedback?: string | null;
  /** A denial after which an identical call of the run asks again instead of being refused at once. */
  allowRetry?: boolean;
  /** The call this decision was made on, when it was carried over to an identical later call. */
  repeatOf?: string | null;
}

/** Who a call is made for: the model (through an agent or host) or a person calling directly. */
export const policyCallers = ['MODEL', 'PERSON'] as const;

/** What a person changed on a call before approving it; the edited arguments ran as `replacedBy`. */
export interface ArgumentsEdit {
  editedBy: string;
  /** Who edited, as the IdP named them; null or absent with an API token. */
  person?: DecidingPerson | null;
  editedAt: string;
  reason: string | null;
  /** RFC 6902 JSON Patch from the original arguments to the edited ones. */
  diff: unknown[];
  replacedBy: string;
}
