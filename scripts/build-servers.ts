/**
 * Builds the two Node servers for production: plain JavaScript that `node`
 * runs, no tsx, no TypeScript.
 *
 *   apps/api/dist/server.js, apps/api/dist/cli.js     node apps/api/dist/server.js
 *   apps/secure-frame/dist-server/server.js          node apps/secure-frame/dist-server/server.js
 *
 * esbuild bundles each entry with the workspace's own packages
 * (@porthole/protocol, @porthole/chains), whose source is TypeScript; every
 * other package stays an import, resolved from node_modules at run time as
 * under tsx. `npm run build` runs this; `tsx scripts/build-servers.ts api`
 * builds one.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'

const root = join(import.meta.dirname, '..')

const servers = {
  api: { dir: 'apps/api', entries: ['src/server.ts', 'src/cli.ts'], outdir: 'dist' },
  'secure-frame': {
    dir: 'apps/secure-frame',
    entries: ['server/server.ts'],
    outdir: 'dist-server',
  },
} as const

type Manifest = { name: string; dependencies?: Record<string, string> }
const manifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest

/** The npm packages `dir` needs at run time, its workspace packages' included (those are bundled). */
function externals(dir: string, seen = new Set<string>()): string[] {
  const found: string[] = []
  for (const name of Object.keys(manifest(dir).dependencies ?? {})) {
    if (!name.startsWith('@porthole/')) found.push(name)
    else if (!seen.has(name)) {
      seen.add(name)
      found.push(...externals(`packages/${name.slice('@porthole/'.length)}`, seen))
    }
  }
  return [...new Set(found)].sort()
}

export async function buildServer(name: keyof typeof servers): Promise<void> {
  const { dir, entries, outdir } = servers[name]
  await build({
    absWorkingDir: join(root, dir),
    entryPoints: [...entries],
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // A package named here stays an import, its subpaths too (zod/mini, viem/accounts).
    external: externals(dir),
    sourcemap: 'linked',
    logLevel: 'warning',
  })
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const asked = process.argv.slice(2)
  for (const name of Object.keys(servers) as (keyof typeof servers)[])
    if (asked.length === 0 || asked.includes(name)) await buildServer(name)
}
