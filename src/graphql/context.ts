import type { Services } from '../app/services.js';
import type { Principal } from '../core/auth.js';

export interface GraphQLContext {
  principal: Principal | null;
  /** Why the token sent was refused (revoked, expired, unbound); null when none was sent or it worked. */
  refusal: string | null;
  services: Services;
}
