import { Client, fetchExchange } from 'urql';
import { GRAPHQL_ENDPOINT } from '../api/client';
import { MeQuery } from '../api/documents';
import type { MeQuery as MeResult } from '../gql/graphql';

/** Per tab, gone when the tab closes: a token pasted here is not left on the disk of a shared machine. */
const KEY = 'ats.token';

export type Me = MeResult['me'];

export const storedToken = (): string | null => sessionStorage.getItem(KEY);
export const storeToken = (token: string) => sessionStorage.setItem(KEY, token);
export const forgetToken = () => sessionStorage.removeItem(KEY);

/** Who the token is, or why it cannot be used. */
export async function whoIs(token: string): Promise<{ me: Me } | { error: string }> {
  const client = new Client({
    url: GRAPHQL_ENDPOINT,
    exchanges: [fetchExchange],
    fetchOptions: { headers: { authorization: `Bearer ${token}` } },
  });
  const result = await client.query(MeQuery, {}, { requestPolicy: 'network-only' }).toPromise();
  if (result.data?.me) return { me: result.data.me };
  const error = result.error;
  if (error?.networkError) return { error: `The server did not answer (${error.networkError.message}).` };
  return { error: `The token was not accepted: ${error?.graphQLErrors[0]?.message ?? 'no answer'}` };
}

export const canDecide = (me: Me) => me.role === 'ADMIN' || me.role === 'APPROVER';
export const isAdmin = (me: Me) => me.role === 'ADMIN';

/** "APPROVER for alice, u1" — what the header says about the token. */
export function describeToken(me: Me): string {
  const scope =
    me.allUsers || me.role === 'ADMIN'
      ? 'every user'
      : me.users.length > 0
        ? me.users.join(', ')
        : 'no users';
  return `${me.role} ${me.name} · for ${scope}`;
}
