/**
 * Starts one built-in plugin on a test kernel through the real createPluginSdk, as the
 * PluginRegistry does in the daemon, without the registry's install and restart machinery.
 */
import { createPluginSdk, type Plugin, type PluginSDK } from "../../core/mod.ts";

/** What startPlugin needs: the kernel parts createPluginSdk takes. */
export type PluginHostOptions = Parameters<typeof createPluginSdk>[1];

/** A started plugin; disposing it stops the plugin and detaches what it registered. */
export interface StartedPlugin extends AsyncDisposable {
  sdk: PluginSDK;
  stop(): Promise<void>;
}

/** Start `plugin`; a plugin that throws in start is detached and the error rethrown. */
export async function startPlugin(
  plugin: Plugin,
  options: PluginHostOptions,
): Promise<StartedPlugin> {
  const logger = options.logger.child({ plugin: plugin.name });
  const { sdk, detach } = createPluginSdk(plugin.name, { ...options, logger });
  try {
    await plugin.start(sdk);
  } catch (error) {
    detach();
    throw error;
  }
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      await plugin.stop();
    } finally {
      detach();
    }
  };
  return { sdk, stop, [Symbol.asyncDispose]: stop };
}
