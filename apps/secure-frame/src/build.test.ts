/**
 * Builds the frame with Vite into a temporary directory (never touching
 * `dist/`) and checks what would ship (SECURITY.md 14 and 18).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'vite'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

const appDir = fileURLToPath(new URL('..', import.meta.url))
const outDirs: string[] = []
/** The module paths of every chunk built, as the bundler reported them. */
const modules = new Set<string>()
const recordModules: Plugin = {
  name: 'porthole-record-modules',
  writeBundle(_options, bundle) {
    for (const output of Object.values(bundle))
      if (output.type === 'chunk') for (const id of output.moduleIds) modules.add(id)
  },
}

async function buildFrame(env: Record<string, string> = {}): Promise<Map<string, string>> {
  const outDir = await mkdtemp(path.join(tmpdir(), 'secure-frame-build-'))
  outDirs.push(outDir)
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]))
  Object.assign(process.env, env)
  try {
    await build({
      configFile: path.join(appDir, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'silent',
      plugins: [recordModules],
      build: { outDir, emptyOutDir: true },
    })
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
  const files = new Map<string, string>()
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    files.set(path.relative(outDir, file), await readFile(file, 'utf8'))
  }
  return files
}

let files: Map<string, string>
/** Every page: the frame (`index.html`) and the approval popup (`approve.html`). */
const pages = () => [...files].filter(([name]) => name.endsWith('.html'))
const scripts = () => [...files].filter(([name]) => name.endsWith('.js')).map(([, text]) => text)

beforeAll(async () => {
  files = await buildFrame()
}, 60_000)

afterAll(async () => {
  await Promise.all(outDirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

/** No inline script, inline style, event handler attribute or script URL. */
function expectNoInlineCode(page: string) {
  const tags = page.match(/<script\b[^>]*>/g) ?? []
  expect(tags.length).toBeGreaterThan(0)
  for (const tag of tags) expect(tag).toMatch(/\ssrc="\/assets\/[\w.-]+\.js"/)
  expect(page).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/)
  expect(page).not.toMatch(/<style\b/i)
  expect(page).not.toMatch(/\sstyle=/i)
  expect(page).not.toMatch(/\son[a-z]+=/i)
  expect(page).not.toMatch(/javascript:|data:/i)
}

/** Every script and stylesheet is a built file of the frame's own origin. */
function expectOwnFiles(page: string) {
  const urls = [...page.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1])
  expect(urls.length).toBeGreaterThanOrEqual(2)
  for (const url of urls) expect(url).toMatch(/^\/assets\//)
  for (const url of urls) expect(files.has((url ?? '').slice(1))).toBe(true)
}

describe('inv-14 build', () => {
  test('the frame and the approval popup are the pages that ship', () => {
    expect(
      pages()
        .map(([name]) => name)
        .sort(),
    ).toEqual(['approve.html', 'index.html'])
  })

  test('no page has an inline script, inline style or event handler attribute', () => {
    for (const [, page] of pages()) expectNoInlineCode(page)
  })

  test('every script and stylesheet is a file of its own origin', () => {
    for (const [, page] of pages()) expectOwnFiles(page)
  })

  test('only hashed script and style files ship, without source maps', () => {
    const names = [...files.keys()].filter((name) => !name.endsWith('.html'))
    expect(names.length).toBeGreaterThan(0)
    for (const name of names) expect(name).toMatch(/^assets\/[\w-]+-[\w-]{8}\.(js|css)$/)
    for (const text of files.values()) expect(text).not.toContain('sourceMappingURL')
  })

  test("zod is made jitless before any schema exists (no eval probe under the CSP's script-src)", () => {
    // packages/protocol's zod.ts runs `z.config({ jitless: true })` before its schemas,
    // in whichever chunk holds zod.
    const zod = scripts().filter((bundle) => bundle.includes('jitless'))
    expect(zod).toHaveLength(1)
    expect(zod[0]).toMatch(/jitless:(!0|true)/)
  })

  test('zod ships as zod/mini only: no module of classic zod', () => {
    const zodModules = [...modules].filter((id) => id.includes('/zod/'))
    expect(zodModules.some((id) => id.includes('/zod/v4/mini/'))).toBe(true)
    expect(zodModules.filter((id) => !/\/zod\/v4\/(mini|core|locales)\//.test(id))).toEqual([])
  })
})

describe('inv-18 build', () => {
  test.each([
    ['__TEST__', /__test__/i],
    ['e2e (a word start: `#2e2e33` is a colour)', /\be2e/i],
    ['vitest', /vitest/i],
    ['playwright', /playwright/i],
    ['a test helper (test/, whose every module sets this marker)', /porthole:test-only/],
    ['process.env', /process\.env/],
    ['import.meta.env', /import\.meta\.env/],
    ['VITE_', /VITE_/],
  ])('no test-only switch or build variable ships: %s', (_, pattern) => {
    for (const [name, text] of files)
      expect(pattern.test(text), `${pattern} in ${name}`).toBe(false)
  })

  test('the widget origin is fixed at build time, from VITE_WIDGET_ORIGIN', async () => {
    expect(scripts().join('\n')).toContain('http://widget.localhost:5171')
    const custom = await buildFrame({ VITE_WIDGET_ORIGIN: 'https://widget.example.com' })
    const bundle = [...custom].filter(([name]) => name.endsWith('.js')).map(([, text]) => text)
    expect(bundle.join('\n')).toContain('https://widget.example.com')
    expect(bundle.join('\n')).not.toContain('widget.localhost')
  }, 60_000)
})

describe('inv-02 build', () => {
  test("no message is posted with target origin '*'", () => {
    const code = scripts().join('\n')
    expect(code).toMatch(/postMessage\(/)
    // A literal '*' as postMessage's target origin, in any quoting the minifier may choose.
    expect(code).not.toMatch(/postMessage\([^()]*,\s*["'`]\*["'`]/)
    expect(code).not.toMatch(/targetOrigin\s*:\s*["'`]\*["'`]/)
  })
})
