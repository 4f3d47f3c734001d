import type { Services } from '../app/services.js';
import type { Principal } from '../core/auth.js';

export interface GraphQLContext {
  principal: Principal | null;
  services: Services;
}
