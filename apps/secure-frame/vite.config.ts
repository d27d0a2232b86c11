import { fileURLToPath } from 'node:url'
import { defineConfig, loadEnv } from 'vite'
// By path: Vite loads a config's packages with Node, which runs no TypeScript.
import { origins } from '../../packages/dev-stack/src/stack.ts'

const root = fileURLToPath(new URL('.', import.meta.url))

/**
 * The secure frame's build. Build-time configuration (read by `src/lib/config.ts`):
 * `VITE_WIDGET_ORIGIN` (the only origin whose handshake is accepted) and
 * `VITE_API_URL` (the API as the browser sees it). The HTML must stay free of
 * inline script and style: the frame's CSP allows only `'self'` files. The
 * built files are served by `server/server.ts`, which adds the per-project CSP.
 */
export default defineConfig(({ mode }) => {
  const env = { ...loadEnv(mode, root, 'VITE_'), ...process.env }
  return {
    // Relative to this file, whatever the working directory (npm -w, tests).
    root,
    base: '/',
    // Unset or empty: the dev origins, from their one definition (the dev stack's).
    define: {
      'import.meta.env.VITE_WIDGET_ORIGIN': JSON.stringify(
        env.VITE_WIDGET_ORIGIN || origins.widget,
      ),
      'import.meta.env.VITE_API_URL': JSON.stringify(env.VITE_API_URL || origins.api),
    },
    build: {
      target: 'es2022',
      outDir: 'dist',
      emptyOutDir: true,
      // Everything is a file under 'self': never a data: URL for script or style.
      assetsInlineLimit: 0,
      // No dynamic import: the preload polyfill would be dead code.
      modulePreload: { polyfill: false },
      // Two pages: the frame, and the approval popup for browsers that cannot
      // check the frame's visibility (src/approval/popup.ts).
      rollupOptions: {
        input: {
          main: fileURLToPath(new URL('index.html', import.meta.url)),
          approve: fileURLToPath(new URL('approve.html', import.meta.url)),
        },
      },
      sourcemap: false,
      reportCompressedSize: false,
    },
  }
})
