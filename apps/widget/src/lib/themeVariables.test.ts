import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  contrastRatio,
  minContrast,
  parseThemeVariables,
  readableAccent,
  themeStyle,
} from './themeVariables.js'

const query = (values: Record<string, string>) => `?${new URLSearchParams(values)}`

describe('parseThemeVariables', () => {
  test('takes a hex accent, whole-pixel radius and a family list', () => {
    expect(
      parseThemeVariables(
        query({
          themeAccent: '#0A7D32',
          themeRadius: '4',
          themeFont: '"Fira Sans", Georgia, serif',
        }),
      ),
    ).toEqual({
      variables: { accent: '#0a7d32', radius: 4, font: '"Fira Sans", Georgia, serif' },
      refused: [],
    })
    expect(parseThemeVariables(query({ themeAccent: '#abc', themeRadius: '0' })).variables).toEqual(
      { accent: '#abc', radius: 0 },
    )
  })

  test('nothing set: nothing changes', () => {
    expect(parseThemeVariables('?projectId=p&theme=dark')).toEqual({ variables: {}, refused: [] })
  })

  // What a hostile or careless tag might put there: each must stay out of the style.
  test.each([
    ['themeAccent', 'red'],
    ['themeAccent', '#fff;background:url(https://evil.example/x)'],
    ['themeAccent', 'rgb(0 0 0)'],
    ['themeAccent', 'var(--ph-danger)'],
    ['themeAccent', '#12345'],
    ['themeRadius', '33'],
    ['themeRadius', '-1'],
    ['themeRadius', '4px'],
    ['themeRadius', '1e1'],
    ['themeRadius', 'calc(100vw)'],
    ['themeFont', 'Arial; color: red'],
    ['themeFont', 'x, url(https://evil.example/font.woff2)'],
    ['themeFont', 'Arial } body { display: none'],
    ['themeFont', '"Arial'],
    // Symbol fonts would turn every word (the unverified-domain alert too) into pictures.
    ['themeFont', 'Wingdings'],
    ['themeFont', 'Webdings, serif'],
    ['themeFont', 'Symbol'],
    ['themeFont', 'Georgia, Bodoni Ornaments'],
    ['themeFont', 'a'.repeat(201)],
    ['themeFont', ''],
  ])('%s=%j is refused and named', (name, value) => {
    const { variables, refused } = parseThemeVariables(query({ [name]: value }))
    expect(variables).toEqual({})
    expect(refused).toEqual([
      expect.stringContaining(`data-theme-${name.slice('theme'.length).toLowerCase()}`),
    ])
  })
})

describe('contrast', () => {
  test('WCAG ratios of known pairs', () => {
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5)
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2)
    expect(contrastRatio('#2f4ae0', '#ffffff')).toBeGreaterThan(minContrast)
  })

  test('a readable accent is kept as it is', () => {
    expect(readableAccent('#2f4ae0', 'light')).toBe('#2f4ae0')
    expect(readableAccent('#a3b4ff', 'dark')).toBe('#a3b4ff')
  })

  test('a pale accent is darkened in light, a dark one lightened in dark', () => {
    const yellow = readableAccent('#ffff00', 'light')
    expect(yellow).not.toBe('#ffff00')
    expect(contrastRatio(yellow, '#ffffff')).toBeGreaterThanOrEqual(minContrast)
    const navy = readableAccent('#000080', 'dark')
    expect(navy).not.toBe('#000080')
    expect(contrastRatio(navy, '#17181d')).toBeGreaterThanOrEqual(minContrast)
  })

  const hex = fc
    .tuple(
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
    )
    .map((rgb) => `#${rgb.map((channel) => channel.toString(16).padStart(2, '0')).join('')}`)

  test('any accent, either theme: text and button both reach 4.5:1 on every surface', () => {
    fc.assert(
      fc.property(hex, fc.constantFrom('light' as const, 'dark' as const), (accent, theme) => {
        const style = themeStyle({ accent }, theme)
        const shown = style['--ph-accent'] ?? ''
        const surfaces = theme === 'light' ? ['#ffffff', '#f3f4f7'] : ['#17181d', '#23252c']
        for (const surface of surfaces)
          expect(contrastRatio(shown, surface)).toBeGreaterThanOrEqual(minContrast)
        expect(contrastRatio(shown, style['--ph-accent-fg'] ?? '')).toBeGreaterThanOrEqual(
          minContrast,
        )
      }),
      { numRuns: 500 },
    )
  })
})

describe('themeStyle', () => {
  test('radius scales from the 24 px card; the font is passed as checked', () => {
    expect(themeStyle({ radius: 6, font: 'Georgia, serif' }, 'light')).toEqual({
      '--ph-radius-scale': '0.25',
      '--ph-font': 'Georgia, serif',
    })
    expect(themeStyle({}, 'dark')).toEqual({})
  })
})
