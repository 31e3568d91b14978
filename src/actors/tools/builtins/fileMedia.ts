import type { DocumentBlock, ImageBlock, ImageMediaType } from '../../../machine/index.js';

/**
 * The largest image `read_file` sends: the API refuses an image whose base64 data passes 5 MB,
 * and base64 takes 4 bytes for every 3.
 */
export const MAX_IMAGE_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);

/**
 * The block the model reads a file as, when its first bytes say it is an image the API takes
 * (PNG, JPEG, GIF, WebP) or a PDF; `undefined` for any other file. The bytes decide, not the
 * name, so a mislabelled file is read for what it is.
 *
 * @example
 * mediaBlockOf(await readFile('logo.png')); // { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR…' } }
 */
export function mediaBlockOf(bytes: Buffer): ImageBlock | DocumentBlock | undefined {
  if (startsWith(bytes, '%PDF-')) {
    return {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: bytes.toString('base64') },
    };
  }
  const mediaType = imageTypeOf(bytes);
  if (mediaType === undefined) return undefined;
  return {
    type: 'image',
    source: { type: 'base64', media_type: mediaType, data: bytes.toString('base64') },
  };
}

function imageTypeOf(bytes: Buffer): ImageMediaType | undefined {
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a')) return 'image/gif';
  if (startsWith(bytes, 'RIFF') && bytes.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'image/webp';
  }
  return undefined;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function startsWith(bytes: Buffer, magic: string): boolean {
  return bytes.subarray(0, magic.length).toString('latin1') === magic;
}
