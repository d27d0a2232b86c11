import { describe, expect, test } from 'vitest'
import { createTestContext } from '../../test/testContext.js'
import { syncTheme } from './syncTheme.js'

describe('syncTheme', () => {
  test('writes the theme as data-theme, replacing the previous one', () => {
    const root = { dataset: {} as DOMStringMap }
    const context = createTestContext({ root })
    syncTheme({ theme: 'dark' }, context)
    expect(root.dataset.theme).toBe('dark')
    syncTheme({ theme: 'light' }, context)
    expect(root.dataset.theme).toBe('light')
  })
})
