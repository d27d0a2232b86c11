/**
 * The host pages both benches load: built with esbuild (production React),
 * served from loopback. Porthole's page and the same page without the
 * snippet are here; `bench:peers` adds its peers' pages (bench/peers/).
 */
import { existsSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { join } from 'node:path'
import { origins, ports, projects } from '@porthole/dev-stack/stack'
import { createStaticServer } from '@porthole/dev-stack/staticServer'
import { build } from 'esbuild'
import type { Subject } from './browser.ts'

/** Where the pages are served: a port of the dev stack's range that only the bench uses. */
export const pagesPort = ports.benchPages
const pagesOrigin = `http://127.0.0.1:${pagesPort}`

/** The e2e project with no allow list: the dev defaults (loopback, `*.localhost`) pass. */
const benchProject = projects.e2e[0].id

/** A page's source: its entry module and what its HTML head carries besides. */
export type PageSource = { path: string; entry: string; head?: string }

/** Porthole's wallet rows, in its widget frame: laid out from start-up (the frame is transparent until open). */
export const portholeRows = '[role="dialog"] [data-wallet-id]'
/** The same rows once the widget has taken the host's `open`: they take clicks and focus. */
export const portholeOpenRows = '[role="dialog"][data-open="true"] [data-wallet-id]'
/** The widget's frame in the host page, transparent until `open()` shows it. */
export const portholeFrame = 'iframe[title="Porthole wallet"]'

export const hostPages = {
  porthole: {
    source: {
      path: 'porthole',
      entry: join(import.meta.dirname, 'hosts/porthole.tsx'),
      head: `<script async src="${origins.widget}/loader.js" data-project-id="${benchProject}"></script>`,
    },
    subject: {
      name: 'Porthole',
      url: `${pagesOrigin}/porthole/`,
      button: '#connect',
      needsWallet: true,
      list: {
        rows: portholeRows,
        frameOrigin: origins.widget,
        shownFrame: portholeFrame,
        interactiveRows: portholeOpenRows,
      },
    },
  },
  bare: {
    source: { path: 'bare', entry: join(import.meta.dirname, 'hosts/bare.tsx') },
    subject: { name: 'bare React page', url: `${pagesOrigin}/bare/`, button: '#connect' },
  },
} satisfies Record<string, { source: PageSource; subject: Subject }>

/** Builds each page into `outdir/<path>/` (index.html, main.js, its chunks and CSS). */
export async function buildPages(sources: PageSource[], outdir: string) {
  for (const source of sources) {
    const dir = join(outdir, source.path)
    await build({
      entryPoints: { main: source.entry },
      outdir: dir,
      bundle: true,
      splitting: true,
      format: 'esm',
      target: 'es2022',
      minify: true,
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
      loader: { '.png': 'dataurl', '.svg': 'dataurl', '.woff2': 'dataurl' },
      logLevel: 'error',
    })
    const css = existsSync(join(dir, 'main.css')) ? '<link rel="stylesheet" href="main.css" />' : ''
    writeFileSync(
      join(dir, 'index.html'),
      `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>A host page</title>
    ${source.head ?? ''}${css}
    <script type="module" src="main.js"></script>
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
`,
    )
  }
}

/** Serves `dir` on the pages' port of 127.0.0.1 until `close`. */
export async function servePages(dir: string): Promise<Server> {
  const server = createStaticServer({ root: dir })
  await new Promise<void>((resolve) => server.listen(pagesPort, '127.0.0.1', resolve))
  return server
}
