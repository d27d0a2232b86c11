import { describe, expect, test } from 'vitest'
import { displayEmail, maxDisplayedEmail } from './emailDisplay.js'

describe('displayEmail (SPEC 2: longer than 30 characters is truncated)', () => {
  test('30 characters show whole', () => {
    const email = `${'a'.repeat(18)}@example.com`
    expect(email).toHaveLength(maxDisplayedEmail)
    expect(displayEmail(email)).toBe(email)
  })

  test('31 characters are cut to 30 with an ellipsis', () => {
    const email = `${'a'.repeat(19)}@example.com`
    const shown = displayEmail(email)
    expect(shown).toHaveLength(30)
    expect(shown.endsWith('…')).toBe(true)
    expect(email.startsWith(shown.slice(0, -1))).toBe(true)
  })
})
