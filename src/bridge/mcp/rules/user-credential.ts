import { z } from 'zod';
import { LONE_SURROGATE } from '../../../core/unicode.js';

/**
 * Issue 29 item 4: an upstream server that acts for each user with that user's own credential.
 * STORED: the user sets a secret once (write-only, encrypted at rest). TOKEN_EXCHANGE: the server
 * exchanges the user's IdP token (RFC 8693) for a token of the upstream's audience. Either way the
 * credential goes upstream in one header, and the host's own token never does.
 */
export const userCredentialModes = ['STORED', 'TOKEN_EXCHANGE'] as const;
export type UserCredentialMode = (typeof userCredentialModes)[number];

/** BEARER sends `Authorization`-style `Bearer <credential>`; RAW sends the credential as the header's whole value. */
export const credentialSchemes = ['BEARER', 'RAW'] as const;
export type CredentialScheme = (typeof credentialSchemes)[number];

// RFC 9110 token characters: anything else would be refused by fetch, or split a header.
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

export interface UserCredentialConfig {
  mode: UserCredentialMode;
  header: string;
  scheme: CredentialScheme;
  /** TOKEN_EXCHANGE: the `audience` asked of the IdP (the upstream's client id or resource). */
  audience: string | null;
  /** TOKEN_EXCHANGE: the `scope` asked of the IdP; null asks for none. */
  scope: string | null;
}

const exchangeParameter = z
  .string()
  .trim()
  .min(1)
  .max(1024)
  .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20), 'must not contain control characters');

export const userCredentialInputSchema = z
  .object({
    mode: z.enum(userCredentialModes),
    header: z.string().regex(HEADER_NAME, 'must be a valid header name').nullish(),
    scheme: z.enum(credentialSchemes).nullish(),
    audience: exchangeParameter.nullish(),
    scope: exchangeParameter.nullish(),
  })
  .superRefine((input, ctx) => {
    if (input.mode === 'TOKEN_EXCHANGE' && !input.audience)
      ctx.addIssue({ code: 'custom', path: ['audience'], message: 'is required for TOKEN_EXCHANGE' });
    if (input.mode === 'STORED')
      for (const f of ['audience', 'scope'] as const)
        if (input[f] != null)
          ctx.addIssue({ code: 'custom', path: [f], message: 'is only for TOKEN_EXCHANGE' });
  })
  .transform(
    (input): UserCredentialConfig => ({
      mode: input.mode,
      header: input.header ?? 'Authorization',
      scheme: input.scheme ?? 'BEARER',
      audience: input.audience ?? null,
      scope: input.scope ?? null,
    }),
  );

/** What a user sets as their credential: one header value, so no line breaks. */
export const credentialSecretSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(8192)
  .refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks or NUL')
  .refine((v) => !LONE_SURROGATE.test(v), 'must be well-formed Unicode');

/** The header a call carries for this user. */
export function credentialHeader(config: UserCredentialConfig, credential: string): [string, string] {
  return [config.header, config.scheme === 'BEARER' ? `Bearer ${credential}` : credential];
}

/** Only an HTTP server can be sent a header per call. */
export function userCredentialProblem(
  transport: 'STDIO' | 'STREAMABLE_HTTP',
  config: UserCredentialConfig | null,
): string | null {
  return config && transport !== 'STREAMABLE_HTTP' ? 'userCredential: is only for STREAMABLE_HTTP' : null;
}

/**
 * A user's call: the admin's headers with the user's credential in place of any admin header of
 * the same name (compared without case). An admin header of that name is what the shared
 * connection lists tools with (a service account's token); no user call ever carries it.
 */
export function userCallHeaders(
  adminHeaders: Record<string, string>,
  [name, value]: readonly [string, string],
): Record<string, string> {
  const kept = Object.entries(adminHeaders).filter(([h]) => h.toLowerCase() !== name.toLowerCase());
  return { ...Object.fromEntries(kept), [name]: value };
}
