/**
 * The site's look beyond light and dark: an accent colour, a corner radius
 * and a font family, from the tag's `data-theme-accent`, `data-theme-radius`
 * and `data-theme-font` (or `createWallet`'s `themeAccent`, `themeRadius`,
 * `themeFont`), which the loader passes in the frame's URL.
 *
 * Each value is checked strictly (a hex colour, whole pixels, fonts from an
 * allow list): anything else is refused (the default stays, and an alert
 * names it). The widget drops the look on a host it refuses (Modal.tsx). An accent is kept readable: as
 * text it must reach 4.5:1 on the card's surfaces in each theme, so it is
 * darkened (light theme) or lightened (dark theme) until it does, and the
 * text on an accent button is white or black, whichever contrasts more
 * (always at least 4.58:1). The secure frame gets none of this: the host
 * must not style what the visitor trusts.
 */
import type { ResolvedTheme } from './theme.js'

export type ThemeVariables = {
  accent?: string
  /** The card's corner radius in CSS pixels; every other radius scales with it. */
  radius?: number
  font?: string
}

type Rgb = readonly [number, number, number]

/** `#rgb` or `#rrggbb`. */
const hexColor = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i
/** Whole pixels, 0 to 32. */
const radiusValue = /^(?:[0-9]|[12][0-9]|3[0-2])$/
/**
 * The fonts a site may name: generic families and widely installed text
 * faces. Any other name is refused, a symbol font above all (Wingdings,
 * Webdings, Symbol…): it would turn every word of the modal, the
 * unverified-domain alert included, into pictures (red team, issue 15).
 */
export const allowedFonts: readonly string[] = [
  'serif',
  'sans-serif',
  'monospace',
  'system-ui',
  'ui-serif',
  'ui-sans-serif',
  'ui-monospace',
  'ui-rounded',
  'Arial',
  'Avenir',
  'Avenir Next',
  'Book Antiqua',
  'Cantarell',
  'Courier New',
  'DejaVu Sans',
  'DejaVu Serif',
  'Fira Sans',
  'Futura',
  'Garamond',
  'Georgia',
  'Gill Sans',
  'Helvetica',
  'Helvetica Neue',
  'IBM Plex Sans',
  'Inter',
  'Lato',
  'Liberation Sans',
  'Liberation Serif',
  'Lucida Grande',
  'Montserrat',
  'Noto Sans',
  'Noto Serif',
  'Open Sans',
  'Optima',
  'Palatino',
  'Palatino Linotype',
  'Poppins',
  'Roboto',
  'Segoe UI',
  'Source Sans Pro',
  'Tahoma',
  'Times',
  'Times New Roman',
  'Trebuchet MS',
  'Ubuntu',
  'Verdana',
]
const allowedFontsByName = new Map(allowedFonts.map((font) => [font.toLowerCase(), font]))

/** A family list of allowed names (quoted or not), as CSS; undefined if any name is not allowed. */
function parseFontList(value: string): string | undefined {
  if (value.length > 200) return undefined
  const families: string[] = []
  for (const part of value.split(',')) {
    const name = part.trim().replace(/^(["'])(.*)\1$/, '$2')
    const known = allowedFontsByName.get(name.toLowerCase())
    if (!known) return undefined
    families.push(/\s/.test(known) ? `"${known}"` : known)
  }
  return families.join(', ')
}

/** The minimum contrast of accent text on the card (WCAG 2 AA, normal text). */
export const minContrast = 4.5

/** The card's surfaces each theme may draw accent text on (index.css): surface, surface-2, surface-3 (hover). */
const surfaces: Record<ResolvedTheme, readonly Rgb[]> = {
  light: [
    [0xff, 0xff, 0xff],
    [0xf3, 0xf4, 0xf7],
    [0xe6, 0xe8, 0xee],
  ],
  dark: [
    [0x17, 0x18, 0x1d],
    [0x23, 0x25, 0x2c],
    [0x2f, 0x32, 0x3b],
  ],
}
/** accent-soft's opacity over the surface, per theme (index.css). */
const softAlpha: Record<ResolvedTheme, number> = { light: 0.1, dark: 0.16 }

export function parseThemeVariables(search: string): {
  variables: ThemeVariables
  refused: string[]
} {
  const params = new URLSearchParams(search)
  const variables: ThemeVariables = {}
  const refused: string[] = []
  const accent = params.get('themeAccent')
  if (accent !== null) {
    if (hexColor.test(accent)) variables.accent = accent.toLowerCase()
    else refused.push('data-theme-accent (a #rgb or #rrggbb colour)')
  }
  const radius = params.get('themeRadius')
  if (radius !== null) {
    if (radiusValue.test(radius)) variables.radius = Number(radius)
    else refused.push('data-theme-radius (whole pixels, 0 to 32)')
  }
  const font = params.get('themeFont')
  if (font !== null) {
    const list = parseFontList(font)
    if (list) variables.font = list
    else refused.push('data-theme-font (common text fonts or generic families, comma-separated)')
  }
  return { variables, refused }
}

const toRgb = (hex: string): Rgb => {
  const digits =
    hex.length === 4
      ? hex
          .slice(1)
          .split('')
          .map((digit) => digit + digit)
      : [hex.slice(1, 3), hex.slice(3, 5), hex.slice(5, 7)]
  const [r = 0, g = 0, b = 0] = digits.map((pair) => Number.parseInt(pair, 16))
  return [r, g, b]
}

const toHex = (rgb: Rgb) =>
  `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`

/** WCAG 2 relative luminance. */
function luminance(rgb: Rgb): number {
  const [r = 0, g = 0, b = 0] = rgb.map((channel) => {
    const value = channel / 255
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** WCAG 2 contrast ratio of two opaque colours (1 to 21). */
export function contrastRatio(a: Rgb | string, b: Rgb | string): number {
  const [high, low] = [luminance(toColor(a)), luminance(toColor(b))].sort((x, y) => y - x)
  return ((high ?? 0) + 0.05) / ((low ?? 0) + 0.05)
}

const toColor = (color: Rgb | string): Rgb => (typeof color === 'string' ? toRgb(color) : color)

const mix = (from: Rgb, to: Rgb, amount: number): Rgb =>
  [0, 1, 2].map(
    (index) => (from[index] ?? 0) + ((to[index] ?? 0) - (from[index] ?? 0)) * amount,
  ) as unknown as Rgb

/** The lowest contrast of `accent` as text on the theme's surfaces and on its own soft tint. */
function worstContrast(accent: Rgb, theme: ResolvedTheme): number {
  const backgrounds = surfaces[theme].flatMap((surface) => [
    surface,
    mix(surface, accent, softAlpha[theme]),
  ])
  return Math.min(...backgrounds.map((background) => contrastRatio(accent, background)))
}

/**
 * The accent as the theme shows it: the site's colour if it reads at 4.5:1 as
 * text there, else the nearest darker (light) or lighter (dark) one that does.
 */
export function readableAccent(accent: string, theme: ResolvedTheme): string {
  const start = toRgb(accent)
  const toward: Rgb = theme === 'light' ? [0, 0, 0] : [255, 255, 255]
  for (let step = 0; step <= 20; step++) {
    // Checked as it will be shown: rounded to whole channels.
    const candidate = toHex(mix(start, toward, step / 20))
    if (worstContrast(toRgb(candidate), theme) >= minContrast) return candidate
  }
  return toHex(toward)
}

/** The CSS custom properties for the card (index.css reads them), for the resolved theme. */
export function themeStyle(
  variables: ThemeVariables,
  theme: ResolvedTheme,
): Record<string, string> {
  const style: Record<string, string> = {}
  if (variables.accent) {
    const accent = readableAccent(variables.accent, theme)
    const [r, g, b] = toRgb(accent)
    style['--ph-accent'] = accent
    style['--ph-accent-fg'] =
      contrastRatio(accent, '#ffffff') >= contrastRatio(accent, '#000000') ? '#ffffff' : '#000000'
    style['--ph-accent-soft'] = `rgb(${r} ${g} ${b} / ${softAlpha[theme]})`
  }
  // index.css's radii are the default card's (24 px) scaled by this.
  if (variables.radius !== undefined) style['--ph-radius-scale'] = String(variables.radius / 24)
  if (variables.font) style['--ph-font'] = variables.font
  return style
}
