import type { Principal } from '../domain/auth.js';
import type { Services } from '../services.js';

export interface GraphQLContext {
  principal: Principal | null;
  services: Services;
}
