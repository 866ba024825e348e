/**
 * The plugin SDK as one JavaScript module, when this program is the one-file bundle: the bundle
 * build (.ci/bundle.ts) replaces this file with the SDK's bundled text. Run from the source tree
 * there is none, and plugins import the SDK's own files (plugins/sdk/import_map.json).
 */
export const SDK_BUNDLE: string | undefined = undefined;
