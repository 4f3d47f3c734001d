import { useEffect, useState } from 'react';
import { useClient } from 'urql';
import { ResourceQuery } from '../api/documents';
import type { ResourceQuery as ResourceResult } from '../gql/graphql';

export type Resource = NonNullable<ResourceResult['resource']>;

/** A resource read through `resource(uri)`: the API decides what this token may read (null otherwise). */
export function useResource(uri: string | null) {
  const client = useClient();
  const [state, setState] = useState<{ resource: Resource | null; error: string | null; loading: boolean }>({
    resource: null,
    error: null,
    loading: uri !== null,
  });
  useEffect(() => {
    if (!uri) return;
    let live = true;
    setState({ resource: null, error: null, loading: true });
    void client
      .query(ResourceQuery, { uri }, { requestPolicy: 'cache-first' })
      .toPromise()
      .then((result) => {
        if (!live) return;
        const resource = result.data?.resource ?? null;
        const error =
          result.error?.message ?? (resource ? null : 'not found, or not readable with this token');
        setState({ resource, error, loading: false });
      });
    return () => {
      live = false;
    };
  }, [client, uri]);
  return state;
}

/** Opens a resource in a new tab, as a blob of its own type (the token never goes into a URL). */
export function openResource(resource: Resource): void {
  const bytes = Uint8Array.from(atob(resource.base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: resource.mimeType }));
  window.open(url, '_blank', 'noopener');
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
