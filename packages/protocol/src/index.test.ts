import { readdirSync } from 'node:fs'
import { expect, test } from 'vitest'
import * as Protocol from './index.js'

const modules = readdirSync(new URL('.', import.meta.url))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'index.ts')
  .map((file) => file.slice(0, -'.ts'.length))

test('the index exports every module, as a namespace named after its file', async () => {
  expect(modules.length).toBeGreaterThan(0)
  expect(Object.keys(Protocol).sort()).toEqual([...modules].sort())
  for (const name of modules) {
    const module: Record<string, unknown> = await import(`./${name}.js`)
    expect({ ...(Protocol as Record<string, object>)[name] }, name).toEqual({ ...module })
  }
})
