/** The storage layer's public entry: home directory, SQLite, and the stores behind core's ports. */
export * from "./home.ts";
export * from "./sqlite.ts";
export * from "./config_store.ts";
export * from "./context_store.ts";
export * from "./embedding.ts";
export * from "./keywords.ts";
export * from "./hash_embedder.ts";
export * from "./tfidf.ts";
export * from "./static_embedder.ts";
export * from "./model_download.ts";
export * from "./wordpiece.ts";
export * from "./onnx_embedder.ts";
export * from "./http_embedder.ts";
export * from "./embedding_config.ts";
export * from "./embedders.ts";
export * from "./doc_store.ts";
export * from "./tiers.ts";
