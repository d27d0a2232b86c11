import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { build as esbuild } from 'esbuild'
import { createServer, defineConfig, loadEnv, type Plugin, runnerImport } from 'vite'
import { relayUrl as devRelayUrl, origins, ports } from '../../packages/dev-stack/src/stack.ts'
// By path: Vite loads a config's packages with Node, which runs no TypeScript.
import { recommendedWalletsCount } from '../../packages/protocol/src/Constants.ts'
import { reactAliases } from './preact.ts'
import {
  checkConfig,
  configElementId,
  configTags,
  firstPaintScript,
  prefetchScriptTag,
  type WidgetConfig,
} from './runtimeConfig.mjs'

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
        return html.replace(settings, (block) => `${block}\n    ${prefetchScriptTag(fileName)}`)
      },
    },
  }
}

/**
 * The registry's first page, as `GET /getWallets` serves it to a project that
 * filters nothing: its first wallets in the registry's order (the recommended
 * one), and how many there are. Read from the registry the API seeds
 * (apps/api/data/wallet-registry).
 */
async function registryFirstPage(): Promise<unknown> {
  const path = fileURLToPath(new URL('../api/data/wallet-registry/wallets.json', import.meta.url))
  const registry = JSON.parse(await readFile(path, 'utf8')) as Record<
    string,
    { id: string; name: string; chains: string[] }
  >
  const wallets = Object.values(registry)
  return {
    count: wallets.length,
    data: wallets.slice(0, recommendedWalletsCount).map(({ id, name, chains }) => ({
      id,
      name,
      // As the API seeds it; firstPaint.tsx paints no logo.
      image_id: id,
      rdns: null,
      chains,
      homepage: null,
      mobile_link: null,
      desktop_link: null,
      webapp_link: null,
      badge_type: null,
    })),
  }
}

/**
 * The first paint in the built page (src/firstPaint.tsx): Connect's first
 * render, made here through Vite's SSR loader (the same modules and aliases as
 * the bundle), put in `#root`, hidden, with the inline script that shows it in
 * the site's theme (runtimeConfig.mjs `firstPaintScript`); and the stylesheet
 * inlined, since a linked one would hold the paint until it arrived with the
 * app's JS.
 */
function firstPaint(mode: string): Plugin {
  return {
    name: 'porthole-first-paint',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      async handler(html, { bundle }) {
        const link = /<link rel="stylesheet" crossorigin href="\/(assets\/[^"]+\.css)">/
        const stylesheet = bundle?.[html.match(link)?.[1] ?? '']
        if (stylesheet?.type !== 'asset') throw new Error('The built page links no stylesheet.')
        const css = String(stylesheet.source)
        if (css.includes('</')) throw new Error('The stylesheet cannot be inlined: it holds "</".')
        const server = await createServer({
          configFile: fileURLToPath(new URL('./vite.config.ts', import.meta.url)),
          root: fileURLToPath(new URL('.', import.meta.url)),
          mode,
          logLevel: 'error',
          appType: 'custom',
          server: { middlewareMode: true, hmr: false, ws: false },
          optimizeDeps: { noDiscovery: true, include: [] },
          // Every module through Vite, so React resolves to Preact as in the bundle.
          ssr: { noExternal: true },
        })
        let markup: string
        try {
          const { renderFirstPaint } = (await server.ssrLoadModule(
            '/src/firstPaint.tsx',
          )) as typeof import('./src/firstPaint.js')
          markup = await renderFirstPaint(await registryFirstPage())
        } finally {
          await server.close()
        }
        const root = '<div id="root"></div>'
        if (!html.includes(root)) throw new Error('The built page has no empty #root.')
        return html
          .replace(link, () => `<style>${css}</style>`)
          .replace(
            root,
            () => `<div id="root" hidden>${markup}</div>\n    <script>${firstPaintScript}</script>`,
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
      firstPaint(mode),
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
