/** How many leading bytes decide whether a file is binary. */
export const SNIFF_BYTES = 8192;

/**
 * The image media type of a file from its first bytes (PNG, JPEG, GIF, WebP,
 * BMP), or undefined. Content decides, not the extension, so a renamed file
 * is still recognised and a text file called `x.png` is still text.
 */
export function imageMediaType(head: Uint8Array): string | undefined {
  const starts = (...bytes: number[]): boolean => bytes.every((byte, i) => head[i] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x42, 0x4d) && head.length > 14) return 'image/bmp';
  const ascii = (from: number, to: number): string =>
    String.fromCharCode(...head.subarray(from, to));
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * Whether the bytes look binary: a NUL byte, or many control characters,
 * in the first `SNIFF_BYTES`. Text in any ASCII-compatible encoding passes.
 */
export function looksBinary(head: Uint8Array): boolean {
  const sample = head.subarray(0, SNIFF_BYTES);
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 8 || (byte > 13 && byte < 32 && byte !== 27)) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}
