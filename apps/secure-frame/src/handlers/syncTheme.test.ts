import { describe, expect, test } from 'vitest'
import { syncTheme } from './syncTheme.js'

describe('syncTheme', () => {
  test('writes the theme as data-theme, replacing the previous one', () => {
    const root = { dataset: {} as DOMStringMap }
    syncTheme({ theme: 'dark' }, root)
    expect(root.dataset.theme).toBe('dark')
    syncTheme({ theme: 'light' }, root)
    expect(root.dataset.theme).toBe('light')
  })
})
