/**
 * Only shippable code in an app's or package's `src/`: test helpers live in
 * `test/` (each sets the marker the build tests look for in bundles), and no
 * `src/` file reaches into `e2e/`, `scripts/`, a `test/` folder or this
 * package, except the tests beside the code.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, test } from 'vitest'

const root = join(import.meta.dirname, '..', '..', '..')
const workspaces = ['apps/api', 'apps/demo', 'apps/secure-frame', 'apps/widget']
  .concat(['packages/chains', 'packages/loader', 'packages/protocol', 'packages/react'])
  .map((workspace) => join(root, workspace))

/** Every TypeScript file under `directory` (none when it does not exist). */
function sources(directory: string): string[] {
  if (!existsSync(directory)) return []
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
}

/** The module specifiers a file imports, statically or dynamically. */
const specifiers = (text: string) =>
  [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => match[1] ?? '')

const shippable = workspaces
  .flatMap((workspace) => sources(join(workspace, 'src')))
  .filter((file) => !/\.test\.tsx?$/.test(file))

describe('src/', () => {
  test('holds shippable files', () => {
    expect(shippable.length).toBeGreaterThan(100)
  })

  test('imports nothing from e2e/, scripts/, a test/ folder or @porthole/dev-stack', () => {
    const reaching = shippable.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((specifier) => /^@porthole\/dev-stack|(^|\/)(e2e|scripts|test)\//.test(specifier))
        .map((specifier) => `${relative(root, file)} imports ${specifier}`),
    )
    expect(reaching).toEqual([])
  })

  test('holds no test helper', () => {
    const helpers = shippable.filter((file) =>
      readFileSync(file, 'utf8').includes('porthole:test-only'),
    )
    expect(helpers.map((file) => relative(root, file))).toEqual([])
  })
})

describe('test/', () => {
  const helpers = workspaces.flatMap((workspace) => sources(join(workspace, 'test')))

  test('every test helper module sets the marker the build tests look for', () => {
    expect(helpers.length).toBeGreaterThanOrEqual(7)
    const unmarked = helpers.filter(
      (file) => !readFileSync(file, 'utf8').includes("['porthole:test-only'] = true"),
    )
    expect(unmarked.map((file) => relative(root, file))).toEqual([])
  })
})
