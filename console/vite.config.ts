import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The console is served by the API server at /console (and /); its hashed files under
 * /console/assets/ are cached for good. `npm run build:console` writes dist/ here.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // One page, read all day: one script and one stylesheet is simpler to cache than many chunks.
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `npx vite console` next to `npm start`: the API on the same origin, as in production.
    proxy: { '/graphql': { target: 'http://127.0.0.1:4000', ws: true } },
  },
});
