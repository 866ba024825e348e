/**
 * Decoding stored images to RGB pixels for an image encoder, with the bomb checks decoding
 * needs: the header's pixel count is checked before (sniffImage), a PNG's compressed stream
 * is inflated once into a counter that stops at the size its header allows, and JPEG decoding
 * runs under jpeg-js's own resolution and memory caps.
 * @module
 */
import { convertIndexedToRgb, decode as decodePng } from "fast-png";
import { Unzlib } from "fflate";
import jpeg from "jpeg-js";
import { errorMessage, MediaError } from "../../core/mod.ts";
import { sniffImage } from "./sniff.ts";

/** Pixels as 8-bit RGB, row-major, 3 bytes a pixel. */
export interface RgbImage {
  width: number;
  height: number;
  rgb: Uint8Array;
}

/**
 * Decode a PNG or JPEG to RGB. Throws MediaError: "type_refused" for other types (GIF and
 * WebP are stored and shown but not decoded here) or damaged data, "too_many_pixels" for a
 * header past `maxPixels` or a stream that inflates past what its header declares.
 */
export function decodeImage(bytes: Uint8Array, maxPixels: number): RgbImage {
  const { mime, width, height } = sniffImage(bytes, maxPixels);
  try {
    if (mime === "image/png") {
      checkPngInflation(bytes, width, height);
      return pngToRgb(bytes);
    }
    if (mime === "image/jpeg") {
      const out = jpeg.decode(bytes, {
        useTArray: true,
        formatAsRGBA: false,
        maxResolutionInMP: maxPixels / 1e6,
        maxMemoryUsageInMB: Math.ceil((maxPixels * 8) / 1e6) + 64,
      });
      return { width: out.width, height: out.height, rgb: out.data };
    }
  } catch (error) {
    if (error instanceof MediaError) throw error;
    throw new MediaError("type_refused", `Cannot decode ${mime}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  throw new MediaError(
    "type_refused",
    `Cannot decode ${mime} for embedding: only PNG and JPEG are decoded`,
  );
}

function pngToRgb(bytes: Uint8Array): RgbImage {
  const png = decodePng(bytes);
  const { width, height } = png;
  let data = png.data;
  let channels = png.channels ?? 4;
  if (png.palette) {
    data = convertIndexedToRgb(png);
    channels = png.palette[0]?.length ?? 3;
  }
  const shift = (png.depth ?? 8) === 16 ? 8 : 0;
  const rgb = new Uint8Array(width * height * 3);
  for (let p = 0; p < width * height; p++) {
    const at = p * channels;
    const gray = channels < 3;
    for (let c = 0; c < 3; c++) rgb[p * 3 + c] = data[at + (gray ? 0 : c)]! >> shift;
  }
  return { width, height, rgb };
}

/**
 * A PNG's IDAT chunks inflate to at most height × (1 + width × 8) bytes (16-bit RGBA is 8
 * bytes a pixel, one filter byte a row; interlacing adds a little). Inflate into a counter
 * and refuse the image past that, before any decoder allocates for it.
 */
function checkPngInflation(bytes: Uint8Array, width: number, height: number): void {
  const limit = height * (1 + width * 8) * 1.1 + 1024;
  let total = 0;
  const inflater = new Unzlib((chunk) => {
    total += chunk.length;
    if (total > limit) {
      throw new MediaError(
        "too_many_pixels",
        `Refused image/png: its data inflates past the ${width}×${height} pixels it declares`,
      );
    }
  });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 8; at + 8 <= bytes.length;) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const end = at + 12 + length;
    if (end > bytes.length) break;
    if (type === "IDAT") inflater.push(bytes.subarray(at + 8, at + 8 + length));
    if (type === "IEND") break;
    at = end;
  }
}
