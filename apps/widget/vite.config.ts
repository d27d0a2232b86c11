import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { build as esbuild } from 'esbuild'
import { defineConfig, loadEnv, type Plugin, runnerImport } from 'vite'
// By path: Vite loads a config's packages with Node, which runs no TypeScript.
import { relayUrl as devRelayUrl, origins, ports } from '../../packages/dev-stack/src/stack.ts'
import { reactAliases } from './preact.ts'
import { checkConfig, configElementId, configTags, type WidgetConfig } from './runtimeConfig.mjs'

/**
 * The settings' parsers, shared with the bundle (`src/lib/env.ts`). Through
 * Vite's module runner: they throw the widget's errors, which import
 * `@porthole/protocol`, a package of TypeScript that Node cannot run.
 */
const { module: defaults } = await runnerImport<typeof import('./src/lib/defaults.js')>(
  fileURLToPath(new URL('./src/lib/defaults.ts', import.meta.url)),
)
const { defaultWalletConnectProjectId, parseUrlSetting, parseWebSocketUrlSetting } = defaults

/**
 * The deployment's settings in the built page (runtimeConfig.mjs): its
 * Content-Security-Policy meta tag and the JSON block the app reads at start,
 * right after the charset. `scripts/configure.mjs` rewrites both for another
 * deployment, with no rebuild.
 */
function runtimeConfig(config: WidgetConfig): Plugin {
  return {
    name: 'porthole-runtime-config',
    apply: 'build',
    transformIndexHtml: {
      order: 'pre',
      // After the charset (which must come first), before every script and style.
      handler: (html) =>
        html.replace(
          /<meta charset="UTF-8" \/>/,
          (charset) => `${charset}\n    ${configTags(config)}`,
        ),
    },
  }
}

/**
 * The prefetch script (`src/prefetch.ts`: the start-up GETs) is bundled on its
 * own by esbuild, self-contained (about 1 KB), and its tag goes first in the
 * built page's head, `async`: it runs as soon as its one file arrives, while
 * the app's JS still loads. Built by Vite as an entry, it would share a chunk
 * with the app and wait for it. It hands its answers to the app through the
 * widget window (lib/startup.ts).
 */
function prefetchScript(apiUrl: string): Plugin {
  let fileName = ''
  let code = ''
  return {
    name: 'porthole-prefetch',
    apply: 'build',
    async buildStart() {
      const built = await esbuild({
        entryPoints: [fileURLToPath(new URL('./src/prefetch.ts', import.meta.url))],
        bundle: true,
        format: 'esm',
        target: 'es2022',
        minify: true,
        write: false,
        legalComments: 'none',
        define: { 'import.meta.env.VITE_API_URL': JSON.stringify(apiUrl) },
      })
      code = built.outputFiles[0]?.text ?? ''
      const hash = createHash('sha256').update(code).digest('base64url').slice(0, 8)
      fileName = `assets/prefetch-${hash}.js`
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName, source: code })
    },
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        // Right after the settings (the CSP meta, which governs only what follows
        // it, and the block the script reads), before the app's script and its
        // preloads: fetched first.
        const settings = new RegExp(
          `<script type="application/json" id="${configElementId}">[^<]*</script>`,
        )
        if (!settings.test(html)) throw new Error('The built page has no settings block.')
        return html.replace(
          settings,
          (block) => `${block}\n    <script type="module" async src="/${fileName}"></script>`,
        )
      },
    },
  }
}

export default defineConfig(({ mode }) => {
  const env = {
    ...loadEnv(mode, fileURLToPath(new URL('.', import.meta.url)), 'VITE_'),
    ...process.env,
  }
  // Unset: the dev origins, from their one definition (the dev stack's).
  const apiUrl = parseUrlSetting('VITE_API_URL', env.VITE_API_URL, origins.api)
  const secureFrameUrl = parseUrlSetting(
    'VITE_SECURE_FRAME_URL',
    env.VITE_SECURE_FRAME_URL,
    origins.secure,
  )
  const relayUrl = parseWebSocketUrlSetting(
    'VITE_WALLETCONNECT_RELAY_URL',
    env.VITE_WALLETCONNECT_RELAY_URL,
    devRelayUrl,
  )
  const walletConnectProjectId =
    env.VITE_WALLETCONNECT_PROJECT_ID?.trim() || defaultWalletConnectProjectId
  return {
    plugins: [
      react(),
      tailwindcss(),
      runtimeConfig(
        checkConfig({
          apiUrl,
          secureFrameUrl,
          walletConnectRelayUrl: relayUrl,
          walletConnectProjectId,
        }),
      ),
      prefetchScript(apiUrl),
    ],
    define: {
      'import.meta.env.VITE_API_URL': JSON.stringify(apiUrl),
      'import.meta.env.VITE_SECURE_FRAME_URL': JSON.stringify(secureFrameUrl),
      'import.meta.env.VITE_WALLETCONNECT_RELAY_URL': JSON.stringify(relayUrl),
      'import.meta.env.VITE_WALLETCONNECT_PROJECT_ID': JSON.stringify(walletConnectProjectId),
      // @walletconnect/utils asks whether it runs under Vitest; a browser build never does.
      'process.env.IS_VITEST': JSON.stringify('false'),
    },
    build: {
      manifest: true,
      target: 'es2022',
      // Every browser the widget supports has modulepreload: no polyfill in the start-up JS.
      modulePreload: { polyfill: false },
      // No source maps ship (SECURITY.md 18): they would publish the sources, tests included.
      sourcemap: false,
    },
    resolve: { alias: reactAliases },
    server: { port: ports.widget, strictPort: true },
    preview: { port: ports.widget, strictPort: true },
  }
})
