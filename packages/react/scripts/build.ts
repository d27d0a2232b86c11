/**
 * Builds `dist/index.js` (ESM; React, its JSX runtime and @porthole/loader
 * stay imports, Porthole's network names are bundled in) and
 * `dist/index.d.ts`, from the loader's built types (build the loader first:
 * the root `npm run build` does).
 *
 *   npm run build -w @porthole/react
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { generateDtsBundle } from 'dts-bundle-generator'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  jsx: 'automatic',
  minify: true,
  legalComments: 'none',
  external: ['react', 'react/jsx-runtime', '@porthole/loader'],
  logLevel: 'warning',
})

const [types = ''] = generateDtsBundle(
  [{ filePath: `${root}/src/index.ts`, output: { exportReferencedTypes: false, noBanner: true } }],
  { preferredConfigPath: `${root}/tsconfig.dts.json`, followSymlinks: false },
)
mkdirSync(`${root}/dist`, { recursive: true })
writeFileSync(`${root}/dist/index.d.ts`, types)
