/**
 * No folder import cycle inside an app's or package's `src/` (issue 12): a
 * file in folder A importing a file in folder B (B ≠ A) is an edge A → B, and
 * no folder may reach itself again along the edges. Only shipped code makes
 * edges: a test may drive its folder from the top (an API route's test builds
 * the whole app), which says nothing about how the code is layered. A file importing its own ancestor folder's `index.ts` is an edge to
 * that ancestor, so a subfolder that imports its parent's index while the
 * parent imports the subfolder is a cycle. Imports are read with TypeScript's
 * own `preProcessFile` (static, `export … from`, and dynamic `import()`).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'

const root = join(import.meta.dirname, '..', '..', '..')

/** The source folders checked: each must have no folder import cycle. */
const checked = [
  'apps/api/src',
  'apps/demo/src',
  'apps/secure-frame/server',
  'apps/secure-frame/src',
  'apps/widget/src',
  'packages/chains/src',
  'packages/dev-stack/src',
  'packages/loader/src',
  'packages/protocol/src',
  'packages/react/src',
]

/** Every TypeScript file under `directory` that is not a test. */
const sources = (directory: string) =>
  readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /(?<!\.test)\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))

/** The folder a relative import reaches: the folder itself for a folder's index, else the file's. */
function folderOf(file: string, specifier: string): string {
  const target = resolve(dirname(file), specifier)
  return existsSync(target) && statSync(target).isDirectory() ? target : dirname(target)
}

/** Edges between the folders under `top`, each with one import that makes it, `from → to`. */
function folderEdges(top: string): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>()
  for (const file of sources(top)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith('.')) continue
      const from = relative(top, dirname(file)) || '.'
      const target = relative(top, folderOf(file, specifier)) || '.'
      if (target === from || target.startsWith('..')) continue
      const out = edges.get(from) ?? new Map<string, string>()
      if (!out.has(target)) out.set(target, `${relative(top, file)} imports '${specifier}'`)
      edges.set(from, out)
    }
  }
  return edges
}

/**
 * The cycles a depth-first walk of the folders meets (each import back into
 * the folders it is walking closes one): every folder along it, with the
 * import that makes each step. None when the folders form no cycle.
 */
function folderCycles(top: string): string[][] {
  const edges = folderEdges(top)
  const cycles: string[][] = []
  const walking: string[] = []
  const done = new Set<string>()
  const visit = (folder: string) => {
    if (walking.includes(folder)) {
      cycles.push(walking.slice(walking.indexOf(folder)))
      return
    }
    if (done.has(folder)) return
    walking.push(folder)
    for (const to of edges.get(folder)?.keys() ?? []) visit(to)
    walking.pop()
    done.add(folder)
  }
  for (const folder of [...edges.keys()].sort()) visit(folder)
  return cycles.map((cycle) =>
    cycle.map((folder, at) => {
      const to = cycle[at + 1] ?? (cycle[0] as string)
      return `${folder} → ${to} (${edges.get(folder)?.get(to)})`
    }),
  )
}

describe('folderCycles', () => {
  test('finds a cycle between sibling folders and one through an ancestor index, not through a test', () => {
    const top = mkdtempSync(join(tmpdir(), 'folder-cycles-'))
    const files = {
      'a/x.ts': "import { y } from '../b/y.js'\nexport const x = y",
      'b/y.ts': "export const y = 1\nexport const later = () => import('../a/index.js')",
      'a/index.ts': "export * from './x.js'",
      'c/index.ts': "export { z } from './d/z.js'",
      'c/d/z.ts': "import type { W } from '../index.js'\nexport const z: W = 1",
      'e/only.ts': "import { y } from '../b/y.js'\nimport { x } from '../a/x.js'\nexport { x, y }",
      // A test drives its folder from above: b → e here would close b → e → b.
      'b/y.test.ts': "import { x } from '../e/only.js'\nexport const t = x",
    }
    try {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(top, dirname(path)), { recursive: true })
        writeFileSync(join(top, path), text)
      }
      expect(folderCycles(top)).toEqual([
        ["a → b (a/x.ts imports '../b/y.js')", "b → a (b/y.ts imports '../a/index.js')"],
        ["c → c/d (c/index.ts imports './d/z.js')", "c/d → c (c/d/z.ts imports '../index.js')"],
      ])
    } finally {
      rmSync(top, { recursive: true, force: true })
    }
  })

  test.each(checked)('%s has no folder import cycle', (folder) => {
    const top = join(root, folder)
    expect(sources(top).length).toBeGreaterThan(0)
    expect(folderCycles(top)).toEqual([])
  })

  test('every source folder is checked', () => {
    const folders = readdirSync(join(root, 'apps'))
      .map((app) => `apps/${app}`)
      .concat(readdirSync(join(root, 'packages')).map((pkg) => `packages/${pkg}`))
      .flatMap((workspace) => ['src', 'server'].map((folder) => `${workspace}/${folder}`))
      .filter((folder) => existsSync(join(root, folder)))
    expect(folders.sort()).toEqual([...checked].sort())
  })
})
