/**
 * ONNX image encoders (the vision tower of a CLIP-style pair: `pixel_values` float
 * [batch, 3, size, size] in, `image_embeds` [batch, dim] out) run by onnxruntime-web, and the
 * unified space that pairs one with the text model of the same dimension: one space, one
 * fingerprint, text and images comparable (ARCHITECTURE.md "Unified multimodal space").
 * @module
 */
import { basename } from "node:path";
import {
  type Embedder,
  EmbeddingError,
  type EmbedOptions,
  errorMessage,
  type ImageInput,
  type Logger,
  type Modality,
} from "../../core/mod.ts";
import type { RgbImage } from "../image/decode.ts";
import { formatFingerprint, l2Normalize, parseFingerprint } from "./fingerprint.ts";
import { sha256File } from "./model_download.ts";
import { loadOrt, type Ort } from "./onnx.ts";

type Session = Awaited<ReturnType<Ort["InferenceSession"]["create"]>>;

/** CLIP's normalisation (OpenAI CLIP, Chinese-CLIP and most of their exports). */
const CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073] as const;
const CLIP_STD = [0.26862954, 0.26130258, 0.27577711] as const;

/** Options of loadOnnxImageEncoder. */
export interface OnnxImageEncoderOptions {
  /** The vision model (`core.agent.embedding_onnx_image_model`). */
  modelPath: string;
  logger: Logger;
  /** Side of the square input; default the model's declared input size, else 224. */
  size?: number;
  /** A decoded image may have at most this many pixels (bomb guard); default 40 M. */
  maxPixels?: number;
}

/** An image encoder; its vectors are L2-normalised. */
export interface ImageEncoder {
  /** `onnx-image/<file>@<sha12>`: names the model in a unified fingerprint. */
  readonly model: string;
  readonly dim: number;
  embedImages(images: readonly ImageInput[], options?: EmbedOptions): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** Load an image encoder; rejects with EmbeddingError naming the file and the cause. */
export async function loadOnnxImageEncoder(
  options: OnnxImageEncoderOptions,
): Promise<ImageEncoder> {
  const { modelPath } = options;
  const failed = (why: string, cause?: unknown) =>
    new EmbeddingError(
      "onnx-image",
      "failed",
      `Cannot use ONNX image model "${modelPath}": ${why}`,
      {
        cause,
      },
    );
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(modelPath);
  } catch (error) {
    throw new EmbeddingError(
      "onnx-image",
      "unavailable",
      `Cannot read "${modelPath}": ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  const ort = await loadOrt();
  let session: Session;
  try {
    session = await ort.InferenceSession.create(bytes, { executionProviders: ["wasm"] });
  } catch (error) {
    throw failed(errorMessage(error), error);
  }
  const size = options.size ?? declaredSize(session) ?? 224;
  const maxPixels = options.maxPixels ?? 40_000_000;
  const run = async (images: RgbImage[]) => {
    const input = session.inputNames.includes("pixel_values")
      ? "pixel_values"
      : session.inputNames[0]!;
    const tensor = new ort.Tensor("float32", toPixelValues(images, size), [
      images.length,
      3,
      size,
      size,
    ]);
    const result = await session.run({ [input]: tensor });
    const name = ["image_embeds", "embeddings"].find((n) => session.outputNames.includes(n)) ??
      session.outputNames[0]!;
    const out = result[name]!;
    try {
      const dims = out.dims;
      if (dims.length !== 2 || !(out.data instanceof Float32Array)) {
        throw new TypeError(
          `output "${name}" has shape [${dims.join(", ")}], expected [batch, dim]`,
        );
      }
      const dim = dims[1]!, data = out.data;
      return images.map((_, b) => l2Normalize(data.slice(b * dim, (b + 1) * dim)));
    } finally {
      for (const t of Object.values(result)) t.dispose();
    }
  };
  const probe = await run([{ width: 1, height: 1, rgb: new Uint8Array(3) }]).catch(
    async (error) => {
      await session.release();
      throw failed(errorMessage(error), error);
    },
  );
  const sha = (await sha256File(modelPath)).slice(0, 12);
  const model = `onnx-image/${basename(modelPath).replace(/\.onnx$/, "")}@${sha}`;
  options.logger.info("Loaded ONNX image encoder", { modelPath, dim: probe[0]!.length, size });
  let closed = false;
  return {
    model,
    dim: probe[0]!.length,
    async embedImages(images, opts = {}) {
      const out: Float32Array[] = [];
      // The PNG and JPEG decoders load with the first image, not with the daemon.
      const { decodeImage } = await import("../image/decode.ts");
      for (const image of images) { // one at a time: a decoded photo is large
        opts.signal?.throwIfAborted();
        if (closed) throw failed("the session is closed");
        let pixels: RgbImage;
        try {
          pixels = decodeImage(image.bytes, maxPixels);
        } catch (error) {
          throw new EmbeddingError(
            "onnx-image",
            "failed",
            `Cannot embed ${image.mime}: ${errorMessage(error)}`,
            {
              cause: error,
            },
          );
        }
        out.push(
          ...await run([pixels]).catch((error) => {
            throw failed(errorMessage(error), error);
          }),
        );
      }
      return out;
    },
    async close() {
      if (closed) return;
      closed = true;
      await session.release();
    },
  };
}

/** The square side a model declares for its first input ([batch, 3, H, W] with H = W). */
function declaredSize(session: Session): number | undefined {
  const meta = (session as unknown as { inputMetadata?: { shape?: unknown[] }[] }).inputMetadata;
  const shape = meta?.[0]?.shape;
  const h = shape?.[2], w = shape?.[3];
  return typeof h === "number" && h === w && h > 0 ? h : undefined;
}

/**
 * CLIP preprocessing: scale the short side to `size` (bilinear), crop the centre square,
 * normalise each channel; planar float32 [batch, 3, size, size].
 */
export function toPixelValues(images: readonly RgbImage[], size: number): Float32Array {
  const plane = size * size;
  const out = new Float32Array(images.length * 3 * plane);
  images.forEach((image, b) => {
    const scale = Math.min(image.width, image.height) / size;
    const x0 = (image.width - size * scale) / 2, y0 = (image.height - size * scale) / 2;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const rgb = sample(image, x0 + (x + 0.5) * scale - 0.5, y0 + (y + 0.5) * scale - 0.5);
        for (let c = 0; c < 3; c++) {
          out[b * 3 * plane + c * plane + y * size + x] = (rgb[c]! / 255 - CLIP_MEAN[c]!) /
            CLIP_STD[c]!;
        }
      }
    }
  });
  return out;
}

function sample(image: RgbImage, fx: number, fy: number): [number, number, number] {
  const cx = Math.min(Math.max(fx, 0), image.width - 1),
    cy = Math.min(Math.max(fy, 0), image.height - 1);
  const x0 = Math.floor(cx), y0 = Math.floor(cy);
  const x1 = Math.min(x0 + 1, image.width - 1), y1 = Math.min(y0 + 1, image.height - 1);
  const dx = cx - x0, dy = cy - y0;
  const px = (x: number, y: number, c: number) => image.rgb[(y * image.width + x) * 3 + c]!;
  const at = (c: number) =>
    px(x0, y0, c) * (1 - dx) * (1 - dy) + px(x1, y0, c) * dx * (1 - dy) +
    px(x0, y1, c) * (1 - dx) * dy + px(x1, y1, c) * dx * dy;
  return [at(0), at(1), at(2)];
}

/**
 * The unified space: `text` and `image` share one dimension and one fingerprint. Throws
 * EmbeddingError("mismatch") when their dimensions differ (they are not one pair).
 */
export function unifiedSpace(text: Embedder, image: ImageEncoder): Embedder {
  if (text.dim !== image.dim) {
    throw new EmbeddingError(
      "onnx-image",
      "mismatch",
      `The image encoder "${image.model}" has ${image.dim} dimensions and the text space ` +
        `"${text.fingerprint}" ${text.dim}: they are not one CLIP-style pair`,
    );
  }
  const textModel = parseFingerprint(text.fingerprint)?.model ?? text.fingerprint;
  return {
    fingerprint: formatFingerprint({
      model: `${textModel}+${image.model}`,
      version: "v1",
      dim: text.dim,
    }),
    dim: text.dim,
    modalities: ["text", "image"] as readonly Modality[],
    embed: (texts, options) => text.embed(texts, options),
    embedImages: (images, options) => image.embedImages(images, options),
  };
}
