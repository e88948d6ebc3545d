import { defineConfig } from 'vite';

// The console is served by the gateway at /console (services/gateway/src/console.ts), so
// its assets live under /console/assets. Preact's JSX through Vite's own transform: no
// Babel, no plugin. No inline script or style is emitted, which the strict CSP requires.
export default defineConfig({
  base: '/console/',
  build: {
    outDir: process.env.CONSOLE_OUT_DIR ?? 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `pnpm --filter @gfts/console dev`: the API and the sign-in settings from a stack on :8080
  server: { proxy: { '/api': 'http://localhost:8080', '/console/config.json': 'http://localhost:8080' } },
});
