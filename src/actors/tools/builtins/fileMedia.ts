import type { DocumentBlock, ImageBlock, ImageMediaType } from '../../../machine/index.js';

/**
 * The largest image `read_file` sends: the API refuses an image whose base64 data passes 5 MB,
 * and base64 takes 4 bytes for every 3.
 */
export const MAX_IMAGE_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);

/** A file the model can see or read whole, by what its first bytes say it is. */
export type MediaType = ImageMediaType | 'application/pdf';

/**
 * The media type of a file whose first bytes say it is an image the API takes (PNG, JPEG, GIF,
 * WebP) or a PDF; `undefined` for any other file. The bytes decide, not the name, so a
 * mislabelled file is read for what it is.
 *
 * @example
 * mediaTypeOf(await readFile('logo.dat')); // 'image/png'
 */
export function mediaTypeOf(bytes: Buffer): MediaType | undefined {
  if (startsWith(bytes, '%PDF-')) return 'application/pdf';
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a')) return 'image/gif';
  if (startsWith(bytes, 'RIFF') && bytes.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'image/webp';
  }
  return undefined;
}

/**
 * The block the model reads a file of `mediaType` as: an image, or a PDF document.
 *
 * @example
 * mediaBlock(bytes, 'image/png'); // { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR…' } }
 */
export function mediaBlock(bytes: Buffer, mediaType: MediaType): ImageBlock | DocumentBlock {
  const data = bytes.toString('base64');
  return mediaType === 'application/pdf'
    ? { type: 'document', source: { type: 'base64', media_type: mediaType, data } }
    : { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function startsWith(bytes: Buffer, magic: string): boolean {
  return bytes.subarray(0, magic.length).toString('latin1') === magic;
}
