/** The storage layer's public entry: home directory, SQLite, and the stores behind core's ports. */
export * from "./home.ts";
export * from "./sqlite.ts";
export * from "./stores/config.ts";
export * from "./stores/context.ts";
export * from "./embed/fingerprint.ts";
export * from "./text/keywords.ts";
export * from "./embed/hash.ts";
export * from "./embed/tfidf.ts";
export * from "./embed/static_vectors.ts";
export * from "./embed/model_download.ts";
export * from "./embed/wordpiece.ts";
export * from "./embed/onnx.ts";
export {
  type CatalogModel,
  catalogModel,
  DEFAULT_MODEL,
  MODEL_CATALOG,
  type Pooling,
} from "./embed/model_catalog.ts";
export {
  checkModelName,
  type InstalledModel,
  listInstalledModels,
  loadInstalledEmbedder,
  type ModelManifest,
  removeInstalledModel,
} from "./embed/model_store.ts";
export { installModel, type InstallProgress, type InstallResult } from "./embed/model_install.ts";
export { type DownloadProgress, downloadVerified } from "./embed/download.ts";
export * from "./embed/http.ts";
export * from "./embed/config.ts";
export * from "./embed/spaces.ts";
export * from "./docs/store.ts";
export * from "./graph/db.ts";
export * from "./graph/indexer.ts";
export * from "./graph/tier.ts";
export * from "./cli/inspect.ts";
export * from "./open.ts";
export * from "./log/text_log.ts";
export * from "./loops/distiller.ts";
export * from "./loops/heartbeat.ts";
export * from "./knowledge/base.ts";
export * from "./upkeep.ts";
export * from "./recall.ts";
export * from "./eval/eval.ts";
export * from "./eval/run.ts";
export * from "./stores/usage.ts";
export * from "./cli/portable.ts";
export * from "./cli/commands.ts";
export { memoryModelCommand, MODEL_USAGE, parseModelArgs, socketAnswers } from "./cli/model.ts";
export * from "./plugin_services.ts";
export * from "./cli/health.ts";
export { loadOnnxImageEncoder, toPixelValues, unifiedSpace } from "./embed/onnx_image.ts";
export type { ImageEncoder, OnnxImageEncoderOptions } from "./embed/onnx_image.ts";
export { MediaTier } from "./media/store.ts";
export type { MediaTierOptions, ReembedProgress } from "./media/store.ts";
export { BlobFiles, sha256Hex } from "./media/blobs.ts";
export { ACCEPTED_IMAGE_TYPES, magicType, sniffImage } from "./media/sniff.ts";
export { decodeImage } from "./media/decode.ts";
export { defaultMediaConfig, readMediaConfig, registerMediaDefaults } from "./media/config.ts";
export type { MediaConfig } from "./media/config.ts";
