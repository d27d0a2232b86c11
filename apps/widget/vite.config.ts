import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { build as esbuild } from 'esbuild'
import { defineConfig, loadEnv, type Plugin, runnerImport } from 'vite'
// By path: Vite loads a config's packages with Node, which runs no TypeScript.
import { relayUrl as devRelayUrl, origins, ports } from '../../packages/dev-stack/src/stack.ts'
import { reactAliases } from './preact.ts'

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
 * A Content-Security-Policy for the built page: scripts and styles from the
 * widget origin only, calls and images to the API only (and the WalletConnect
 * relay's socket), frames from the secure origin only. (`frame-ancestors` cannot be set by a meta tag; the
 * widget may be framed anywhere and checks its host itself.)
 */
function contentSecurityPolicy(apiUrl: string, secureFrameUrl: string, relayUrl: string): Plugin {
  const api = new URL(apiUrl).origin
  const relay = new URL(relayUrl).origin
  const secure = new URL(secureFrameUrl).origin
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' ${api} data: blob:`,
    `connect-src 'self' ${api} ${relay}`,
    `frame-src ${secure}`,
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ')
  return {
    name: 'porthole-csp',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: policy },
        injectTo: 'head-prepend',
      },
    ],
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
        // Right after the Content-Security-Policy (a meta tag governs only what
        // follows it), before the app's script and its preloads: fetched first.
        const policy = /<meta http-equiv="Content-Security-Policy"[^>]*>/
        if (!policy.test(html)) throw new Error('The built page has no Content-Security-Policy.')
        return html.replace(
          policy,
          (meta) => `${meta}\n    <script type="module" async src="/${fileName}"></script>`,
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
      contentSecurityPolicy(apiUrl, secureFrameUrl, relayUrl),
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
