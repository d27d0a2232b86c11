/**
 * A host developer's app outside the workspace (issue 15): a Vite + React +
 * TypeScript app in a temporary folder that installs `@porthole/loader` and
 * `@porthole/react` from the tarballs `npm pack` makes, with
 * `npm ci --offline`. Its other packages come from the npm cache the
 * workspace's own install filled: the app's lock file is the workspace's,
 * cut down to what the app needs, so the offline install asks for no version
 * the cache lacks. Then `tsc` and `vite build`, each the app's own copy.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')

/** What the app depends on besides the two tarballs, at the workspace's versions. */
const appPackages = {
  dependencies: ['react', 'react-dom'],
  devDependencies: [
    '@types/react',
    '@types/react-dom',
    '@vitejs/plugin-react',
    'typescript',
    'vite',
  ],
}

type LockEntry = {
  version?: string
  link?: boolean
  dev?: boolean
  devOptional?: boolean
  peer?: boolean
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}
type Lock = { packages: Record<string, LockEntry> }

/** What `npm pack --json` says of each tarball. */
type Packed = { name: string; version: string; filename: string; integrity: string }

/** The folder holding `location`'s `node_modules`, one level up ('' at the top). */
const parentOf = (location: string) => {
  const at = location.lastIndexOf('/node_modules/')
  return at === -1 ? '' : location.slice(0, at)
}

/**
 * The entries of the workspace's lock that `names` need, resolved as Node
 * does (a nested copy first, then up to the top), with every dependency,
 * optional dependency and peer they name, recursively.
 */
export function lockSubset(lock: Lock, names: readonly string[]): Record<string, LockEntry> {
  const picked: Record<string, LockEntry> = {}
  const visit = (from: string, name: string, optional: boolean) => {
    for (let base = from; ; base = parentOf(base)) {
      const key = `${base ? `${base}/` : ''}node_modules/${name}`
      const entry = lock.packages[key]
      if (entry && !entry.link) {
        if (key in picked) return
        const { dev: _dev, devOptional: _devOptional, peer: _peer, ...kept } = entry
        picked[key] = kept
        for (const dependency of Object.keys(entry.dependencies ?? {}))
          visit(key, dependency, false)
        for (const dependency of Object.keys(entry.optionalDependencies ?? {}))
          visit(key, dependency, true)
        for (const dependency of Object.keys(entry.peerDependencies ?? {}))
          visit(key, dependency, entry.peerDependenciesMeta?.[dependency]?.optional === true)
        return
      }
      if (!base) {
        if (optional) return
        throw new Error(
          `The workspace's package-lock.json has no ${name} (needed from ${from || 'the app'}).`,
        )
      }
    }
  }
  for (const name of names) visit('', name, false)
  return picked
}

const versionOf = (lock: Lock, name: string) => {
  const version = lock.packages[`node_modules/${name}`]?.version
  if (!version) throw new Error(`The workspace has no ${name} installed.`)
  return version
}

/** The app's files, for the widget at `widgetUrl` and the project `projectId`. */
function appFiles(options: { projectId: string; widgetUrl: string }): Record<string, string> {
  return {
    'index.html': `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>An app outside the workspace</title>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/src/main.tsx"></script>
  </body>
</html>
`,
    '.env': `VITE_PROJECT_ID=${options.projectId}\nVITE_WIDGET_URL=${options.widgetUrl}\n`,
    'vite.config.ts': `import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

export default defineConfig({ plugins: [react()] })
`,
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          module: 'ESNext',
          moduleResolution: 'bundler',
          jsx: 'react-jsx',
          strict: true,
          noEmit: true,
          isolatedModules: true,
          skipLibCheck: false,
          types: ['vite/client'],
        },
        include: ['src'],
      },
      null,
      2,
    )}\n`,
    'src/main.tsx': `import { createWallet, type State } from '@porthole/loader'
import { ConnectButton, useWallet } from '@porthole/react'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { onScriptTag } from './tag'

const wallet = createWallet({
  projectId: import.meta.env.VITE_PROJECT_ID,
  widgetUrl: import.meta.env.VITE_WIDGET_URL,
})

function Status() {
  const { state } = useWallet(wallet)
  const summary: Pick<State, 'status' | 'chainId'> = { status: state.status, chainId: state.chainId }
  return <p data-testid="status">{summary.status} {summary.chainId ?? 'no network'}</p>
}

onScriptTag((tagged) => console.log('a script tag wallet too', tagged.getState().status))

const root = document.getElementById('root')
if (root)
  createRoot(root).render(
    <StrictMode>
      <h1>An app outside the workspace</h1>
      <ConnectButton wallet={wallet} label="Connect a wallet" />
      <Status />
    </StrictMode>,
  )
`,
    // The script tag's globals, typed by the package (never run here: no tag on this page).
    'src/tag.ts': `import type {} from '@porthole/loader/global'
import type { Wallet } from '@porthole/loader'

export function onScriptTag(callback: (wallet: Wallet) => void): void {
  if (window.Wallet) callback(window.Wallet)
  else window.addEventListener('porthole:ready', (event) => callback(event.detail), { once: true })
  window.addEventListener('porthole:session', (event) => {
    const token: unknown = event.detail?.data.token
    if (token !== undefined) console.log('signed in')
  })
}
`,
  }
}

const npm = (cwd: string, args: string[]) =>
  execFileSync('npm', args, {
    cwd,
    stdio: 'pipe',
    encoding: 'utf8',
    env: {
      ...process.env,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
  })

/**
 * Packs both packages into `dir`, writes the app there, installs it offline,
 * type-checks and builds it into `dir/dist`. Throws with npm's or the
 * compiler's output when a step fails.
 */
export function buildOutsideApp(dir: string, options: { projectId: string; widgetUrl: string }) {
  mkdirSync(join(dir, 'src'), { recursive: true })
  // The dist folders are fresh: the stack's start (`npm run build`) made them.
  const packed = JSON.parse(
    npm(root, [
      'pack',
      '--json',
      '--ignore-scripts',
      '--pack-destination',
      dir,
      '-w',
      '@porthole/loader',
      '-w',
      '@porthole/react',
    ]),
  ) as Packed[]
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lock
  const pinned = (names: readonly string[]) =>
    Object.fromEntries(names.map((name) => [name, versionOf(lock, name)]))
  // Each tarball in the lock too, so that the install resolves nothing (a
  // resolution would ask for packuments, which an install from a lock file never cached).
  const tarballs = Object.fromEntries(
    packed.map((tarball) => {
      const manifest = JSON.parse(
        readFileSync(
          join(root, 'packages', tarball.name.replace('@porthole/', ''), 'package.json'),
          'utf8',
        ),
      ) as LockEntry & { license?: string }
      const entry: LockEntry & { resolved: string; integrity: string; license?: string } = {
        version: tarball.version,
        resolved: `file:${tarball.filename}`,
        integrity: tarball.integrity,
      }
      if (manifest.license) entry.license = manifest.license
      if (manifest.peerDependencies) entry.peerDependencies = manifest.peerDependencies
      return [`node_modules/${tarball.name}`, entry]
    }),
  )
  const packageJson = {
    name: 'outside-app',
    private: true,
    type: 'module',
    scripts: { typecheck: 'tsc --noEmit', build: 'vite build' },
    dependencies: {
      ...Object.fromEntries(packed.map((tarball) => [tarball.name, `file:${tarball.filename}`])),
      ...pinned(appPackages.dependencies),
    },
    devDependencies: pinned(appPackages.devDependencies),
  }
  const files = {
    ...appFiles(options),
    'package.json': `${JSON.stringify(packageJson, null, 2)}\n`,
    'package-lock.json': `${JSON.stringify(
      {
        name: packageJson.name,
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': {
            name: packageJson.name,
            dependencies: packageJson.dependencies,
            devDependencies: packageJson.devDependencies,
          },
          ...tarballs,
          ...lockSubset(lock, [...appPackages.dependencies, ...appPackages.devDependencies]),
        },
      },
      null,
      2,
    )}\n`,
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  npm(dir, ['ci', '--offline'])
  npm(dir, ['run', 'typecheck'])
  npm(dir, ['run', 'build'])
}
