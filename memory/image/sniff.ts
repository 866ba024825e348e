/**
 * What an upload really is: the type comes from the bytes (magic numbers), never from the
 * sender's word, and the pixel count from the header before anything is decoded, so a small
 * file that would inflate to gigabytes (a decompression bomb) is refused unread.
 * @module
 */
import { imageSize } from "image-size";
import { errorMessage, MediaError } from "../../core/mod.ts";

/** The image types HomeAgent stores. SVG is not among them: it is a document that can run script. */
export const ACCEPTED_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** What sniffImage found. */
export interface SniffedImage {
  mime: (typeof ACCEPTED_IMAGE_TYPES)[number];
  width: number;
  height: number;
}

const startsWith = (bytes: Uint8Array, magic: readonly number[], at = 0) =>
  magic.every((b, i) => bytes[at + i] === b);

/** The accepted type the bytes begin with, or undefined. */
export function magicType(bytes: Uint8Array): SniffedImage["mime"] | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return "image/gif"; // GIF8
  if (
    startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)
  ) {
    return "image/webp"; // RIFF....WEBP
  }
  return undefined;
}

/**
 * The type and size of an image. Throws MediaError "type_refused" for anything that is not a
 * well-formed PNG, JPEG, GIF or WebP header, and "too_many_pixels" past `maxPixels`.
 */
export function sniffImage(bytes: Uint8Array, maxPixels: number): SniffedImage {
  const mime = magicType(bytes);
  if (!mime) {
    throw new MediaError(
      "type_refused",
      `Refused media: the bytes are not a PNG, JPEG, GIF or WebP image (${bytes.length} bytes)`,
    );
  }
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch (error) {
    throw new MediaError(
      "type_refused",
      `Refused ${mime}: its header is damaged (${errorMessage(error)})`,
      {
        cause: error,
      },
    );
  }
  const { width = 0, height = 0 } = size;
  if (width <= 0 || height <= 0) {
    throw new MediaError("type_refused", `Refused ${mime}: its header declares no size`);
  }
  if (width * height > maxPixels) {
    throw new MediaError(
      "too_many_pixels",
      `Refused ${mime} of ${width}×${height} pixels: more than the ${maxPixels} allowed ` +
        `(core.memory.media.max_pixels)`,
    );
  }
  return { mime, width, height };
}
