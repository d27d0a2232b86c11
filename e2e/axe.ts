/**
 * Accessibility checks inside the e2e flows: axe-core on a view as it shows,
 * once per theme (light, then dark), asserting no violation. The widget's
 * view is checked inside its iframe (with the secure frame nested in it); the
 * approval window and the API's pages are whole pages.
 */
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test } from '@playwright/test'

type Theme = 'light' | 'dark'
const themes: readonly Theme[] = ['light', 'dark']

const widgetFrame = 'iframe[title="Porthole wallet"]'
const secureFrame = 'iframe[title="Porthole secure frame"]'

/** What one axe pass may add to a test's time on a loaded two-core machine. */
const axePassBudget = 15_000

type Violation = Awaited<ReturnType<AxeBuilder['analyze']>>['violations'][number]

/** One line per rule and node: what is wrong, where, and axe's summary of the fix. */
export function describeViolations(violations: readonly Violation[]): string {
  return violations
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact}): ${violation.help}\n  at ${JSON.stringify(node.target)}\n  ${(node.failureSummary ?? '').replaceAll('\n', '\n  ')}`,
      ),
    )
    .join('\n')
}

/** Runs axe (only its violations are reported back); the test gets the pass's time on top of its own. */
async function expectNone(builder: AxeBuilder, label: string): Promise<void> {
  test.setTimeout(test.info().timeout + axePassBudget)
  const { violations } = await builder.options({ resultTypes: ['violations'] }).analyze()
  expect(violations, `axe violations in ${label}:\n${describeViolations(violations)}`).toEqual([])
}

/**
 * The widget's current view (and the secure frame, when it shows), in light
 * then dark: the host's theme is `system` (the demo's default), so the
 * visitor's `prefers-color-scheme` decides. Leaves the page in light.
 */
export async function expectWidgetAccessible(page: Page, view: string): Promise<void> {
  const card = page.frameLocator(widgetFrame).getByRole('dialog').first()
  const secure = page.frameLocator(widgetFrame).locator(`${secureFrame}[data-shown]`)
  for (const theme of themes) {
    await page.emulateMedia({ colorScheme: theme })
    await expect(card).toHaveAttribute('data-theme', theme)
    if (await secure.count())
      await expect(
        page.frameLocator(widgetFrame).frameLocator(secureFrame).locator('html'),
      ).toHaveAttribute('data-theme', theme)
    await expectNone(new AxeBuilder({ page }).include(widgetFrame), `${view} (${theme})`)
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

/**
 * A page of its own (the approval window, the API's device approval and
 * social login pages), in light then dark. A page whose root carries the
 * theme the frame sent it (`data-theme`) gets each theme that way; the others
 * follow `prefers-color-scheme`.
 */
export async function expectPageAccessible(page: Page, name: string): Promise<void> {
  const root = page.locator('html')
  const sent = await root.getAttribute('data-theme')
  for (const theme of themes) {
    await page.emulateMedia({ colorScheme: theme })
    if (sent !== null) await root.evaluate((html, theme) => (html.dataset.theme = theme), theme)
    await expectNone(new AxeBuilder({ page }), `${name} (${theme})`)
  }
  if (sent !== null) await root.evaluate((html, theme) => (html.dataset.theme = theme), sent)
  await page.emulateMedia({ colorScheme: 'light' })
}
