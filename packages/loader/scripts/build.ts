/**
 * Builds the loader with esbuild: `dist/loader.js` (the script-tag IIFE),
 * `dist/loader-solana.js` (the Solana bridge, an ES module the first script
 * imports only when the page uses the Wallet Standard; served beside
 * `loader.js`), `dist/index.js` (ESM, for `import { createWallet } from
 * '@porthole/loader'`) with its types `dist/index.d.ts` (the protocol's types
 * inlined: the package depends on nothing unpublished) and `dist/global.d.ts`
 * (`window.Wallet` and its events). The builders are also used
 * in-process by the tests. esbuild bundles; terser then minifies the two
 * scripts a host page downloads again (its passes save ~250 B brotli on
 * `loader.js`, what keeps it within 5 KB).
 *
 *   npm run build -w @porthole/loader
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { generateDtsBundle } from 'dts-bundle-generator'
import { type BuildOptions, build, type Metafile } from 'esbuild'
import { minify } from 'terser'

const root = fileURLToPath(new URL('..', import.meta.url))

const common = {
  absWorkingDir: root,
  bundle: true,
  minify: true,
  target: 'es2020',
  legalComments: 'none',
  platform: 'browser',
  metafile: true,
  logLevel: 'warning',
  // Assignment semantics for class fields: es2020 has no class fields, and
  // defining them costs a helper call per field; the protocol's errors don't care.
  tsconfigRaw: { compilerOptions: { useDefineForClassFields: false } },
} satisfies BuildOptions

export const loaderOptions = {
  ...common,
  entryPoints: ['src/iife.ts'],
  format: 'iife',
  outfile: 'dist/loader.js',
} satisfies BuildOptions

export const solanaOptions = {
  ...common,
  entryPoints: ['src/solana.ts'],
  format: 'esm',
  outfile: 'dist/loader-solana.js',
} satisfies BuildOptions

export const indexOptions = {
  ...common,
  entryPoints: ['src/index.ts'],
  format: 'esm',
  outfile: 'dist/index.js',
} satisfies BuildOptions

/** The bundle's text (empty when written to disk) and the source files it was made from. */
export type Built = { text: string; inputs: string[] }

/**
 * terser's options for a bundle esbuild already minified: names cross no
 * module boundary, and `unsafe_arrows` is safe here since the bundles
 * construct only classes, never a `function` (made an arrow when it uses no `this`).
 */
const terserOptions = (module: boolean) => ({
  ecma: 2020 as const,
  module,
  toplevel: true,
  compress: { passes: 3, ecma: 2020 as const, unsafe_arrows: true },
  mangle: true,
})

async function run(options: BuildOptions, write: boolean, terse: boolean): Promise<Built> {
  const result = await build({ ...options, write: false })
  const built = result.outputFiles?.[0]?.text ?? ''
  const text = terse
    ? ((await minify(built, terserOptions(options.format === 'esm'))).code ?? '')
    : built
  if (write && options.outfile) {
    const file = `${root}/${options.outfile}`
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, text)
  }
  return {
    text: write ? '' : text,
    inputs: Object.keys((result.metafile as Metafile).inputs),
  }
}

/** Builds `loader.js`; unless `write` is true its text is returned instead of written. */
export const buildLoader = ({ write = false } = {}) => run(loaderOptions, write, true)
/** Builds `loader-solana.js`; unless `write` is true its text is returned instead of written. */
export const buildSolana = ({ write = false } = {}) => run(solanaOptions, write, true)
/** Builds `index.js`; unless `write` is true its text is returned instead of written. */
export const buildIndex = ({ write = false } = {}) => run(indexOptions, write, false)

/**
 * `dist/index.d.ts`: the public types in one file, the protocol's inlined
 * (tsconfig.dts.json maps its imports to its source), and `dist/global.d.ts`
 * copied from `src/global.d.ts`. Returns the declarations.
 */
export function buildTypes({ write = false } = {}): string {
  const [types = ''] = generateDtsBundle(
    [
      {
        filePath: `${root}/src/index.ts`,
        output: { exportReferencedTypes: false, noBanner: true },
      },
    ],
    { preferredConfigPath: `${root}/tsconfig.dts.json` },
  )
  if (write) {
    mkdirSync(`${root}/dist`, { recursive: true })
    writeFileSync(`${root}/dist/index.d.ts`, types)
    copyFileSync(`${root}/src/global.d.ts`, `${root}/dist/global.d.ts`)
  }
  return types
}

/** Raw, gzip (level 9) and brotli (quality 11) sizes in bytes. */
export function sizes(text: string | Uint8Array) {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes).length,
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await Promise.all([
    buildLoader({ write: true }),
    buildSolana({ write: true }),
    buildIndex({ write: true }),
  ])
  buildTypes({ write: true })
  for (const file of [loaderOptions.outfile, solanaOptions.outfile, indexOptions.outfile]) {
    const { raw, gzip, brotli } = sizes(readFileSync(`${root}/${file}`))
    process.stdout.write(`${file}: ${raw} B, gzip ${gzip} B, brotli ${brotli} B\n`)
  }
}
