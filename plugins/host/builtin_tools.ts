/** The `pluginmgr` built-in: the `plgreload` and `output_list_channels` tools. */
import { errorMessage, type Plugin } from "../../core/mod.ts";

/** What the pluginmgr tools need from the registry. */
export interface PluginControl {
  reload(name: string): Promise<{ name: string; state: string; error?: string; tools: string[] }>;
  /** Every output channel: name, capability flags, description. */
  channels(): { name: string; caps: number; description: string }[];
}

const CAP_NAMES = ["text", "file", "image", "audio", "structured"];

/** Create the pluginmgr built-in over `registry`. */
export function createPluginManagerBuiltin(registry: PluginControl): Plugin {
  return {
    name: "pluginmgr",
    start(sdk) {
      sdk.registerTool({
        name: "plgreload",
        description:
          "Hot-reload an installed plugin: restart its process and re-register its tools",
        parameters: {
          type: "object",
          properties: { name: { type: "string", description: "Plugin name" } },
          required: ["name"],
          additionalProperties: false,
        },
        noMemory: true,
        handler: async (args) => {
          try {
            const info = await registry.reload(String(args.name));
            if (info.state !== "running") {
              return {
                content: `Plugin "${info.name}" is ${info.state}: ${info.error ?? ""}`,
                isError: true,
              };
            }
            return `Reloaded "${info.name}"; tools: ${info.tools.join(", ") || "none"}`;
          } catch (error) {
            return { content: errorMessage(error), isError: true };
          }
        },
      });
      sdk.registerTool({
        name: "output_list_channels",
        description: "List the output channels you can send through with output_send__{name}",
        parameters: { type: "object", properties: {}, additionalProperties: false },
        parallelSafe: true,
        noMemory: true,
        handler: () => {
          const channels = registry.channels();
          if (channels.length === 0) return "No output channels";
          return channels.map((c) => {
            const caps = CAP_NAMES.filter((_, i) => (c.caps & (1 << i)) !== 0).join("+");
            return `- ${c.name} [${caps}]: ${c.description} (output_send__${c.name}, help: output_send__${c.name}_help)`;
          }).join("\n");
        },
      });
    },
    stop() {},
  };
}
