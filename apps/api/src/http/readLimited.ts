/** Reading an upstream's answer without keeping more of it than a bound. */

/**
 * Reads an answer's body as a stream, at most `max` bytes: past it (declared
 * or read), the stream is cancelled and nothing more is kept.
 */
export async function readLimited(
  response: Response,
  max: number,
): Promise<{ kind: 'text'; text: string } | { kind: 'too-large' }> {
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > max) {
    await response.body?.cancel().catch(() => {})
    return { kind: 'too-large' }
  }
  if (!response.body) return { kind: 'text', text: '' }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      chunks.length = 0
      await reader.cancel().catch(() => {})
      return { kind: 'too-large' }
    }
    chunks.push(value)
  }
  return { kind: 'text', text: Buffer.concat(chunks, size).toString('utf8') }
}
