export const roles = ['ADMIN', 'APPROVER', 'AGENT', 'EXTENSION', 'VIEWER'] as const;
export type Role = (typeof roles)[number];

/** Who is calling: the token that authenticated the request and what it is bound to. */
export interface Principal {
  tokenId: string;
  name: string;
  role: Role;
  userId: string | null;
  extensionId: string | null;
}

/** Journal actors and decision records name a principal this way. */
export function actorOf(principal: Principal | null): string {
  return principal ? `${principal.role.toLowerCase()}:${principal.name}` : 'system';
}
