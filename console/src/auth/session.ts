import { Client, fetchExchange } from 'urql';
import { GRAPHQL_ENDPOINT } from '../api/client';
import { MeQuery } from '../api/documents';
import type { MeQuery as MeResult } from '../gql/graphql';
import type { IdpSession } from '../logic/oidc';

/**
 * Per tab, gone when the tab closes: a token pasted here is not left on the disk of a shared machine.
 * A token from the IdP is kept the same way, with what its end and sign-out need beside it.
 */
const KEY = 'ats.token';
const IDP_KEY = 'ats.idp';

export type Me = MeResult['whoami'];

/** A token from the IdP's sign-in: when it ends and the ID token its sign-out names. */
export type IdpTokenInfo = Omit<IdpSession, 'token'>;

export const storedToken = (): string | null => sessionStorage.getItem(KEY);
export const storeToken = (token: string) => sessionStorage.setItem(KEY, token);
export function forgetToken() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(IDP_KEY);
}

export function storeIdpSession({ token, ...info }: IdpSession) {
  sessionStorage.setItem(KEY, token);
  sessionStorage.setItem(IDP_KEY, JSON.stringify(info));
}

/** The IdP details of the stored token; null for a pasted API token. */
export function storedIdpInfo(): IdpTokenInfo | null {
  const stored = sessionStorage.getItem(IDP_KEY);
  return stored ? (JSON.parse(stored) as IdpTokenInfo) : null;
}

/** Who the token is, or why it cannot be used. */
export async function whoIs(token: string): Promise<{ me: Me } | { error: string }> {
  const client = new Client({
    url: GRAPHQL_ENDPOINT,
    exchanges: [fetchExchange],
    fetchOptions: { headers: { authorization: `Bearer ${token}` } },
  });
  const result = await client.query(MeQuery, {}, { requestPolicy: 'network-only' }).toPromise();
  if (result.data?.whoami) return { me: result.data.whoami };
  const error = result.error;
  if (error?.networkError) return { error: `The server did not answer (${error.networkError.message}).` };
  return { error: `The token was not accepted: ${error?.graphQLErrors[0]?.message ?? 'no answer'}` };
}

export const canDecide = (me: Me) => me.role === 'ADMIN' || me.role === 'APPROVER';
export const isAdmin = (me: Me) => me.role === 'ADMIN';

/** "APPROVER alice · for alice, u1" — what the header says about who signed in. */
export function describeToken(me: Me): string {
  const scope =
    me.users.includes('*') || me.role === 'ADMIN'
      ? 'every user'
      : me.users.length > 0
        ? me.users.join(', ')
        : 'no users';
  return `${me.role} ${me.name} · for ${scope}`;
}

/** On hover: the IdP's id of the person (what identifies them for good), or that it is an API token. */
export const signedInAs = (me: Me) =>
  me.idp ? `${me.idp.subject} at ${me.idp.issuer}` : `API token ${me.name}`;
