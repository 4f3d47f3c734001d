import type { CombinedError } from 'urql';

/** What a refused request says to the person: the server's first error, else the transport's. */
export const errorText = (error: CombinedError) => error.graphQLErrors[0]?.message ?? error.message;
