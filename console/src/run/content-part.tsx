import { useState } from 'react';
import { JsonView } from 'react-json-view-lite';
import { useClient } from 'urql';
import { ResourceQuery } from '../api/documents';
import type { RunViewQuery } from '../gql/graphql';
import { DiffView } from './diff-view';
import { collapseDeep, jsonStyles } from './json';
import { openResource, useResource } from './resource';

type Call = NonNullable<RunViewQuery['run']>['toolCalls']['edges'][number]['node'];
export type Part = NonNullable<Call['result']>['content'][number];

function DiffPart({ uri, fromRef, toRef }: { uri: string; fromRef?: string | null; toRef?: string | null }) {
  const { resource, error, loading } = useResource(uri);
  return (
    <div className="part" data-testid="part-diff">
      <div className="part-label">
        diff {fromRef ?? '?'} → {toRef ?? '?'}
      </div>
      {loading && <p className="muted">loading…</p>}
      {error && <p className="error">{error}</p>}
      {resource && <DiffView text={resource.text ?? atob(resource.base64)} />}
    </div>
  );
}

function ImagePart({ uri, mimeType }: { uri: string; mimeType: string }) {
  const { resource, error } = useResource(uri);
  return (
    <div className="part" data-testid="part-image">
      {error && <p className="error">{error}</p>}
      {resource && (
        <img src={`data:${mimeType};base64,${resource.base64}`} alt={`tool output (${mimeType})`} />
      )}
    </div>
  );
}

function ResourceLink({ uri, label, testId }: { uri: string; label: string; testId: string }) {
  const client = useClient();
  const [problem, setProblem] = useState<string | null>(null);
  const open = async () => {
    setProblem(null);
    const result = await client.query(ResourceQuery, { uri }, { requestPolicy: 'cache-first' }).toPromise();
    if (result.data?.resource) openResource(result.data.resource);
    else setProblem(result.error?.message ?? 'not found, or not readable with this token');
  };
  return (
    <div className="part" data-testid={testId}>
      <a
        href={uri}
        onClick={(e) => {
          e.preventDefault();
          void open();
        }}
      >
        {label}
      </a>
      {problem && <span className="error"> {problem}</span>}
    </div>
  );
}

export function ContentPart({ part }: { part: Part }) {
  switch (part.__typename) {
    case 'TextPart':
      return (
        <pre className="part text" data-testid="part-text">
          {part.text}
        </pre>
      );
    case 'JsonPart':
      return (
        <div className="part" data-testid="part-json">
          <JsonView
            data={(part.value ?? null) as object}
            shouldExpandNode={collapseDeep}
            style={jsonStyles}
          />
        </div>
      );
    case 'DiffRefPart':
      return <DiffPart uri={part.uri} fromRef={part.fromRef} toRef={part.toRef} />;
    case 'ImageRefPart':
      return <ImagePart uri={part.uri} mimeType={part.imageType} />;
    case 'ResourceRefPart':
      return (
        <ResourceLink
          uri={part.uri}
          testId="part-resource"
          label={`${part.description ?? 'resource'} (${part.resourceType ?? 'unknown type'}) ${part.uri}`}
        />
      );
    case 'FileRefPart':
      return part.fileUri ? (
        <ResourceLink uri={part.fileUri} testId="part-resource" label={`file ${part.path}`} />
      ) : (
        <div className="part">file {part.path} (not stored)</div>
      );
    case 'AudioRefPart':
      return <ResourceLink uri={part.uri} testId="part-resource" label={`audio (${part.audioType})`} />;
    default:
      return null;
  }
}
