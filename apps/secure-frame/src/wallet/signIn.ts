/**
 * Sign-in messages (EIP-4361, CAIP-122) are bound to the site that asks
 * (SECURITY.md 20): a host must not collect, through the embedded wallet, a
 * sign-in for another site's domain. A message is treated as a sign-in as
 * soon as any line reads "… wants you to sign in with your … account", in
 * any case and whatever else the text holds, so a message a lenient verifier
 * would accept is never let through for failing a strict parse. Then its
 * domain (with its scheme, https when absent, as EIP-4361 assumes) and every
 * `URI:` (wherever it stands in a line) must be the requesting origin
 * exactly, or it is refused.
 *
 * Refused with -32602 (invalid params): the request itself is unacceptable
 * from this origin. 4100 would tell the site to ask for the account again,
 * which cannot help.
 */
import { InvalidParamsError } from '@porthole/protocol/Errors'

const headerPhrase = /\bwants you to sign in with your\b/i
/**
 * `URI:` anywhere in a line, not only at its start: some parsers (viem's
 * among them) find it inside a line (`XURI: https://victim.example`).
 */
const uriLine = /URI\s*:\s*(.*)$/i
const lineBreak = /\r\n|\r|\n|\u2028|\u2029|\u0085/

/** A sign-in message for an origin other than the requesting one. */
export class ForeignSignInError extends InvalidParamsError {
  override name = 'ForeignSignInError'
  constructor(claimed: string, origin: string) {
    super(
      `This sign-in message is for ${claimed.slice(0, 200)}, not for ${origin}, the site asking: it is refused.`,
    )
  }
}

/** The origin an EIP-4361 `{scheme://}{domain}` names, or `undefined` when it names none exactly. */
function originOfAuthority(authority: string): string | undefined {
  const match = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):\/\/)?([^\s/?#@]+)$/.exec(authority)
  if (!match?.[2]) return
  const scheme = (match[1] ?? 'https').toLowerCase()
  if (scheme !== 'https' && scheme !== 'http') return
  try {
    const url = new URL(`${scheme}://${match[2]}`)
    // The domain must be the host as a browser writes it: no look-alike rewritten on the way.
    if (url.host !== match[2].toLowerCase()) return
    return url.origin
  } catch {
    return
  }
}

function originOfUri(uri: string): string | undefined {
  try {
    const url = new URL(uri.trim())
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return
    return url.origin
  } catch {
    return
  }
}

/**
 * Throws `ForeignSignInError` when `text` is a sign-in message whose domain
 * or URI is not `origin` (or names none); any other text passes.
 */
export function assertSignInFor(text: string, origin: string): void {
  if (!headerPhrase.test(text)) return
  const lines = text.split(lineBreak)
  let uris = 0
  for (const line of lines) {
    const phrase = headerPhrase.exec(line)
    if (phrase) {
      // Everything before the phrase is the authority: one token, nothing else.
      const authority = line.slice(0, phrase.index).trim()
      if (originOfAuthority(authority) !== origin)
        throw new ForeignSignInError(authority || 'no domain', origin)
    }
    const uri = uriLine.exec(line)
    if (uri) {
      uris += 1
      const value = uri[1] ?? ''
      if (originOfUri(value) !== origin) throw new ForeignSignInError(value || 'no URI', origin)
    }
  }
  if (uris === 0) throw new ForeignSignInError('no URI', origin)
}
