/** The media settings (`core.memory.media.*`, the image encoder beside the text model). */
import { z } from "zod";
import {
  type ConfigRegistry,
  defineFieldTable,
  type FieldSetting,
  fieldTableDefaults,
  type MediaLimits,
  readFieldTable,
} from "../../core/mod.ts";

/** Every media setting, typed. */
export interface MediaConfig extends MediaLimits {
  enabled: boolean;
  /** The ONNX vision model paired with the text model; "" for none. */
  imageModel: string;
  /** Input side of the image model; 0 reads it from the model (else 224). */
  imageSize: number;
}

const KEYS: readonly FieldSetting<MediaConfig>[] = [
  {
    field: "enabled",
    key: "core.memory.media.enabled",
    schema: () => z.boolean(),
    default: true,
    description: "Keep images as memory blocks; off: every channel falls back to plain text",
  },
  {
    field: "maxBytes",
    key: "core.memory.media.max_bytes",
    schema: () => z.int().min(1024).max(512 * 1024 * 1024),
    default: 20 * 1024 * 1024,
    description: "Largest image accepted, in bytes",
  },
  {
    field: "maxItems",
    key: "core.memory.media.max_items",
    schema: () => z.int().min(1).max(64),
    default: 8,
    description: "Most images one input may carry",
  },
  {
    field: "maxPixels",
    key: "core.memory.media.max_pixels",
    schema: () => z.int().min(1024).max(1_000_000_000),
    default: 40_000_000,
    description: "Most pixels an image may declare (refuses decompression bombs)",
  },
  {
    field: "imageModel",
    key: "core.agent.embedding_onnx_image_model",
    schema: () => z.string(),
    default: "",
    description:
      "ONNX image encoder paired with the ONNX text model (a CLIP-style pair of one dimension)",
  },
  {
    field: "imageSize",
    key: "core.agent.embedding_onnx_image_size",
    schema: () => z.int().min(0).max(4096),
    default: 0,
    description: "Input side of the image encoder; 0 reads it from the model (else 224)",
  },
];

/** The defaults as one typed object. */
export const defaultMediaConfig: Readonly<MediaConfig> = Object.freeze(
  fieldTableDefaults(KEYS),
);

/** Define the media keys (restart to apply). Throws TypeError when called twice. */
export function registerMediaDefaults(registry: ConfigRegistry): void {
  defineFieldTable(registry, KEYS);
}

/** Read the media settings in effect (keys must be registered). */
export function readMediaConfig(registry: ConfigRegistry): MediaConfig {
  return readFieldTable(registry, KEYS);
}
