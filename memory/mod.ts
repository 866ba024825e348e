/** The storage layer's public entry: home directory, SQLite, and the stores behind core's ports. */
export * from "./home.ts";
export * from "./sqlite.ts";
export * from "./config_store.ts";
