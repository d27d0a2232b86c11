/** SPEC 2: an email longer than 30 characters is truncated in display. */
export const maxDisplayedEmail = 30

export function displayEmail(email: string): string {
  return email.length > maxDisplayedEmail ? `${email.slice(0, maxDisplayedEmail - 1)}…` : email
}
