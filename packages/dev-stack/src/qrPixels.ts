/**
 * What a phone's camera sees of a QR code drawn as an `<svg>`: the element
 * drawn on a white canvas `size` pixels wide, its RGBA pixels as a plain
 * array, for jsQR to decode. Self-contained (it imports nothing and runs in
 * the page), so a browser-mode test can call it and Playwright can run it in
 * a frame: `locator.evaluate(svgPixels, size)`.
 */
export async function svgPixels(element: Element, size: number): Promise<number[]> {
  const image = new Image()
  const source = new XMLSerializer().serializeToString(element)
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(source)}`
  await image.decode()
  const canvas = document.createElement('canvas')
  canvas.width = size
  canvas.height = size
  const context = canvas.getContext('2d')
  if (!context) throw new Error('no 2d context')
  context.fillStyle = '#fff'
  context.fillRect(0, 0, size, size)
  context.drawImage(image, 0, 0, size, size)
  return Array.from(context.getImageData(0, 0, size, size).data)
}
