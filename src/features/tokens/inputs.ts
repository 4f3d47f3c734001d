import { z } from 'zod';
import { BINDING_PATTERN } from '../../core/access.js';
import { roles } from '../../core/auth.js';

/** What callers may ask of the token service: creation, rebinding and rotation, and the binding rules they share. */

const pattern = z
  .string()
  .regex(BINDING_PATTERN, 'must be an id or glob of A-Z a-z 0-9 _ . @ : - * ? (at most 200 characters)');
const patterns = z.array(pattern).max(100);

const userIdField = z.string().trim().min(1).max(200).regex(BINDING_PATTERN);

/** What a token is bound to; the same rules hold when it is created and when an admin rebinds it. */
interface Binding {
  role: (typeof roles)[number];
  userId?: string | null;
  users?: readonly string[] | null;
  allUsers?: boolean | null;
  profiles?: readonly string[] | null;
  planNodes?: readonly string[] | null;
  extensionId?: string | null;
  /** A legacy-unbound token need not name its user(s); it must still not carry another role's bindings. */
  legacyUnbound?: boolean | null;
}

export function checkBinding(input: Binding, problem: (path: string, message: string) => void): void {
  const person = input.role === 'APPROVER' || input.role === 'VIEWER';
  const required = !input.legacyUnbound;
  if (input.role === 'EXTENSION' && !input.extensionId)
    problem('extensionId', 'an EXTENSION token must name its extension');
  if (input.role !== 'EXTENSION' && input.extensionId)
    problem('extensionId', 'only EXTENSION tokens name an extension');
  if (input.role === 'AGENT' && input.userId && (input.userId.includes('*') || input.userId.includes('?')))
    problem('userId', 'an AGENT token must name the one user its runs act for');
  if (input.role === 'AGENT' && required && !input.userId)
    problem('userId', 'an AGENT token must name the one user its runs act for');
  if (input.role !== 'AGENT' && input.userId)
    problem('userId', 'only AGENT tokens act for one user; APPROVER and VIEWER tokens name `users`');
  if (input.role !== 'AGENT' && (input.profiles?.length || input.planNodes))
    problem('profiles', 'only AGENT tokens are bound to profiles and plan nodes');
  if (!person && (input.users?.length || input.allUsers))
    problem('users', 'only APPROVER and VIEWER tokens are bound to users');
  if (input.users?.includes('*'))
    problem('users', 'grant every user with allUsers: true, not the pattern `*`');
  if (person && required && !input.allUsers && !input.users?.length)
    problem('users', `an ${input.role} token must name the users it is for (or allUsers: true)`);
  if (input.allUsers && input.users?.length) problem('users', 'allUsers: true names no users besides');
}

export const createTokenInputSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    role: z.enum(roles),
    userId: userIdField.nullish(),
    users: patterns.nullish(),
    allUsers: z.boolean().nullish(),
    profiles: patterns.nullish(),
    planNodes: patterns.nullish(),
    extensionId: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9_-]{0,63}$/,
        'must be 1-64 characters of a-z 0-9 _ - starting with a letter or digit',
      )
      .nullish(),
    expiresAt: z.date().nullish(),
  })
  .superRefine((input, ctx) => {
    const problem = (path: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], message });
    checkBinding({ ...input, legacyUnbound: false }, problem);
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now())
      problem('expiresAt', 'must be in the future');
  });
export type CreateTokenInput = z.input<typeof createTokenInputSchema>;

/** A new binding for an existing token: a field given replaces the stored one (null or [] clears it); one left out stays. */
export const bindTokenInputSchema = z.object({
  userId: userIdField.nullish(),
  users: patterns.nullish(),
  allUsers: z.boolean().nullish(),
  profiles: patterns.nullish(),
  planNodes: patterns.nullish(),
  legacyUnbound: z.boolean().nullish(),
});
export type BindTokenInput = z.input<typeof bindTokenInputSchema>;

/** The longest a rotated-out secret keeps working: long enough to roll a deployment, short enough to matter. */
export const MAX_ROTATION_OVERLAP_SECONDS = 3600;
export const rotateTokenInputSchema = z.object({
  overlapSeconds: z.number().int().min(0).max(MAX_ROTATION_OVERLAP_SECONDS).default(300),
});

/** What a watcher of long-lived connections needs to know of a token to tell whether they must end. */
