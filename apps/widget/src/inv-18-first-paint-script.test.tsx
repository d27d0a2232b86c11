/**
 * inv-18: the built page's inline script (runtimeConfig.mjs
 * `showFirstPaintSource`) reads only the frame URL's query, which the host
 * page writes. Whatever it holds, the script sets the card's `data-theme` to
 * `light` or `dark` and shows `#root`, or leaves everything as it was; it adds
 * nothing to the page. Run here in Chromium on a copy of the page's markup.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { showFirstPaintSource } from '../runtimeConfig.mjs'

type Show = (root: HTMLElement | null, search: string, framed: boolean) => void
const show = new Function(`return ${showFirstPaintSource}`)() as Show

let root: HTMLElement
const card = () => root.querySelector('[role="dialog"]') as HTMLElement

beforeEach(() => {
  root = document.createElement('div')
  root.hidden = true
  root.innerHTML =
    '<div inert><div role="dialog" data-theme="light" data-open="false"><ul><li data-wallet-id="a"><button type="button">A</button></li></ul></div></div>'
  document.body.append(root)
})
afterEach(() => root.remove())

const dark = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'

describe('inv-18 the first paint script', () => {
  test.each([
    ['', dark],
    ['?theme=dark', 'dark'],
    ['?theme=light', 'light'],
    ['?theme=system', dark],
    ['?theme=DARK', dark],
    ['?theme=dark%00', dark],
    ['?theme=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', dark],
    ['?theme=__proto__', dark],
    ['?theme=toString', dark],
    ['?theme=light&theme=dark', 'light'],
    ['?theme=%E0%A4%A', dark],
    [`?theme=${'x'.repeat(100_000)}`, dark],
  ])('%#: a query of %s themes the card %s, and adds nothing', (search, theme) => {
    const before = root.innerHTML.replace(/data-theme="\w+"/, '')
    show(root, search, true)
    expect(card().dataset.theme).toBe(theme)
    expect(root.hidden).toBe(false)
    expect(root.innerHTML.replace(/data-theme="\w+"/, '')).toBe(before)
    expect(root.firstElementChild?.hasAttribute('inert')).toBe(true)
  })

  test.each([
    '?themeAccent=%230a7d32',
    '?themeRadius=0',
    '?themeFont=Georgia',
    '?theme%41ccent=x',
    '?theme=dark&themeFont=',
  ])('a site with its own look (%s) leaves it hidden, for the app to paint', (search) => {
    show(root, search, true)
    expect(root.hidden).toBe(true)
    expect(card().dataset.theme).toBe('light')
  })

  test('outside a frame, or in a sandbox of opaque origin (the call says framed: false), it stays hidden', () => {
    show(root, '?theme=dark', false)
    expect(root.hidden).toBe(true)
  })

  test('a page without the first paint is left alone', () => {
    expect(() => show(null, '', true)).not.toThrow()
    root.innerHTML = ''
    show(root, '', true)
    expect(root.hidden).toBe(true)
  })
})
