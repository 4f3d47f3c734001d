import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Types every operation in the console against the server's printed schema, so a field renamed or
 * removed there fails `npm run typecheck`. The output (src/gql/) is generated, never committed.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['console/src/**/*.{ts,tsx}', '!console/src/gql/**'],
  ignoreNoDocuments: true,
  generates: {
    'console/src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        scalars: { DateTime: 'string', JSON: 'unknown' },
        enumsAsTypes: true,
        useTypeImports: true,
      },
    },
  },
};

export default config;
