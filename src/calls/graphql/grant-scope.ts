import { grantScopes } from '../../core/grant.js';
import { builder } from '../../graphql/builder.js';

export const GrantScopeEnum = builder.enumType('GrantScope', {
  description:
    'How far an approval reaches: ONCE this call only; RUN every later call to the same tool in this run (narrowed by conditions) without asking; ALWAYS saves an ALLOW policy rule (shown first by grantPreview).',
  values: grantScopes,
});
