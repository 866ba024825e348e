/** The storage layer's public entry: home directory, SQLite, and the stores behind core's ports. */
export {
  DEFAULT_PERSONA,
  ensureHome,
  type HomePaths,
  homePaths,
  personaFile,
  readPersona,
  resolveHome,
} from "./home.ts";
export { openDatabase } from "./sqlite.ts";
export { openHomeConfig } from "./stores/config.ts";
export { decodeVector, encodeVector, JsonContextStore } from "./stores/context.ts";
export {
  cosine,
  formatFingerprint,
  hash32,
  parseFingerprint,
  sameSpace,
} from "./embed/fingerprint.ts";
export { createTextAnalyzer, IdfTable, keywords, stemEnglish, tokenize } from "./text/keywords.ts";
export { createHashEmbedder } from "./embed/hash.ts";
export { createTfIdfSpace, sparseCosine, tfidfTerms } from "./embed/tfidf.ts";
export { loadStaticEmbedder } from "./embed/static_vectors.ts";
export { fetchModel, parseModelSource } from "./embed/model_download.ts";
export { WordPieceTokenizer } from "./embed/wordpiece.ts";
export { loadOnnxEmbedder, type OnnxEmbedder } from "./embed/onnx.ts";
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
export { createHttpEmbedder } from "./embed/http.ts";
export { readEmbeddingConfig } from "./embed/config.ts";
export { createEmbedder, selectEmbedder } from "./embed/spaces.ts";
export { DocStore } from "./docs/store.ts";
export { GraphDB, isSingleValued } from "./graph/db.ts";
export { GraphIndexer, MEMORY_INDEX_HINT } from "./graph/indexer.ts";
export { openMemory } from "./open.ts";
export { rankMemory, type RecallItem } from "./recall/rank.ts";
export { EvalQuestion, EvalTurn, fuseRankings, recallAt, reciprocalRank } from "./eval/eval.ts";
export { readJsonl, runMemoryEval } from "./eval/run.ts";
export { SqliteUsageStore } from "./stores/usage.ts";
export { exportMemory, importMemory } from "./portable.ts";
export { runEvalCommand, runMemoryCommand } from "./cli/commands.ts";
export { createMemoryRanker, type MemoryRankerOptions } from "./ranker.ts";
export { runUsageCommand, type UsageFlags } from "./cli/usage.ts";
export {
  memoryModelCommand,
  MODEL_USAGE,
  type ModelSetup,
  modelSetup,
  parseModelArgs,
  socketAnswers,
} from "./cli/model.ts";
export { memoryPluginServices } from "./plugin_services.ts";
export { checkStores } from "./cli/health.ts";
export { loadOnnxImageEncoder, toPixelValues, unifiedSpace } from "./embed/onnx_image.ts";
export type { ImageEncoder, OnnxImageEncoderOptions } from "./embed/onnx_image.ts";
export { MediaTier } from "./media/store.ts";
export type { MediaTierOptions, ReembedProgress } from "./media/store.ts";
export { BlobFiles, sha256Hex } from "./media/blobs.ts";
export { ACCEPTED_IMAGE_TYPES, magicType, sniffImage } from "./image/sniff.ts";
export { defaultMediaConfig, readMediaConfig, registerMediaDefaults } from "./media/config.ts";
export type { MediaConfig } from "./media/config.ts";
export { registerMemoryDefaults } from "./settings.ts";
export { runBackupCommand } from "./cli/backup.ts";
export { backupHome, type BackupReport, MANIFEST } from "./backup/backup.ts";
export { RestoreError, restoreHome, type RestoreReport } from "./backup/restore.ts";
export { createForgetter, type ForgetParts, sweepDocuments } from "./forget/forget.ts";
export {
  foldName,
  foldText,
  FORGOTTEN_MARK,
  ForgottenNames,
  type Tombstone,
} from "./forget/matcher.ts";
