import { z } from 'zod';
import { conditionOf, type PolicyCondition, policyConditionsInputSchema } from './policy-conditions.js';

/**
 * Scoped grants (issue 14, item 2): an approval can stand for more than its one call. ONCE is the
 * plain approval; RUN approves the same tool (narrowed by conditions) for the rest of the run;
 * ALWAYS saves an ALLOW policy rule. The lifecycle and the grants feature share these shapes.
 */
export const grantScopes = ['ONCE', 'RUN', 'ALWAYS'] as const;
export type GrantScope = (typeof grantScopes)[number];

/** The approve input's grant fields, checked with the rest of the decision by `checkApprovalGrant`. */
export const grantRequestFields = {
  scope: z.enum(grantScopes).nullish(),
  grantConditions: policyConditionsInputSchema.nullish(),
  grantProfileId: z.string().trim().min(1).max(200).nullish(),
};

type GrantFields = z.output<z.ZodObject<typeof grantRequestFields>>;

/** Conditions narrow a standing grant; a profile is a place for an ALWAYS rule only. */
function checkGrant(
  scope: GrantScope,
  conditions: unknown[] | null | undefined,
  profileId: string | null | undefined,
  ctx: z.RefinementCtx,
  names: { conditions: string; profileId: string },
): void {
  if (scope === 'ONCE' && conditions?.length) {
    ctx.addIssue({
      code: 'custom',
      path: [names.conditions],
      message: 'only a RUN or ALWAYS grant takes conditions',
    });
  }
  if (scope !== 'ALWAYS' && profileId) {
    ctx.addIssue({
      code: 'custom',
      path: [names.profileId],
      message: 'only an ALWAYS grant goes on a profile',
    });
  }
}

export const checkApprovalGrant = (input: GrantFields, ctx: z.RefinementCtx) =>
  checkGrant(input.scope ?? 'ONCE', input.grantConditions, input.grantProfileId, ctx, {
    conditions: 'grantConditions',
    profileId: 'grantProfileId',
  });

/** grantPreview's arguments: the same choice an approval makes, under shorter names. */
export const grantPreviewInputSchema = z
  .object({
    scope: z.enum(grantScopes),
    conditions: policyConditionsInputSchema.nullish(),
    profileId: grantRequestFields.grantProfileId,
  })
  .superRefine((input, ctx) =>
    checkGrant(input.scope, input.conditions, input.profileId, ctx, {
      conditions: 'conditions',
      profileId: 'profileId',
    }),
  );

/** What an approval asks to grant beyond its call; null for ONCE. */
export interface GrantRequest {
  scope: Exclude<GrantScope, 'ONCE'>;
  conditions: PolicyCondition[];
  profileId: string | null;
}

export function grantRequestOf(input: GrantFields): GrantRequest | null {
  const scope = input.scope ?? 'ONCE';
  if (scope === 'ONCE') return null;
  return {
    scope,
    conditions: (input.grantConditions ?? []).map(conditionOf),
    profileId: input.grantProfileId ?? null,
  };
}

/** What grantPreview is asked about, in the form an approval carries it. */
export const grantFieldsOfPreview = (input: z.output<typeof grantPreviewInputSchema>): GrantFields => ({
  scope: input.scope,
  grantConditions: input.conditions,
  grantProfileId: input.profileId,
});
