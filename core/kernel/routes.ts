/**
 * HTTP routes a plugin offers for the web page's views of it (docs/PLUGIN_GUIDE.md "Web
 * routes"). The web app serves them at `/api/v1/plugins/<plugin>/<path>` behind the API token;
 * bodies and answers are JSON. A route path is literal segments and `:name` parameters.
 */

/** A request as a plugin route sees it. */
export interface PluginRouteRequest {
  method: "GET" | "POST";
  /** Values of the route's `:name` segments. */
  params: Record<string, string>;
  query: Record<string, string>;
  /** The parsed JSON body (POST), else undefined. */
  body?: unknown;
}

/**
 * One route. The handler returns the JSON answer (status 200); it throws HomeAgentError to
 * fail: a code ending in `not_found` answers 404, in `conflict` 409, any other 400.
 */
export interface PluginRoute {
  method: "GET" | "POST";
  /** Relative path such as `history` or `sets/:id/rollback`; at least one segment. */
  path: string;
  handler(request: PluginRouteRequest): unknown | Promise<unknown>;
}

interface Entry {
  plugin: string;
  route: PluginRoute;
  segments: string[];
}

const SEGMENT = /^(?::[a-z][a-z0-9_]{0,30}|[a-z0-9][a-z0-9_.-]{0,63})$/;
// The plugin list's own actions live at /api/v1/plugins/<name>/<action>.
const RESERVED = new Set(["enable", "disable", "reload"]);

/** The routes of every plugin; registrations are removed with their plugin. */
export class RouteRegistry {
  #entries: Entry[] = [];

  /** Add a route. Throws TypeError for a bad or duplicate path. */
  register(plugin: string, route: PluginRoute): void {
    const segments = route.path.split("/");
    if (segments.length > 8 || !segments.every((s) => SEGMENT.test(s))) {
      throw new TypeError(
        `Cannot register route "${route.path}" of plugin "${plugin}": segments must be ` +
          `lower-case names or :params, at most 8`,
      );
    }
    if (segments.length === 1 && RESERVED.has(segments[0]!)) {
      throw new TypeError(`Route "${route.path}" is reserved for the plugin list's actions`);
    }
    const shape = (s: string[]) => s.map((x) => x.startsWith(":") ? ":" : x).join("/");
    if (
      this.#entries.some((e) =>
        e.plugin === plugin && e.route.method === route.method &&
        shape(e.segments) === shape(segments)
      )
    ) {
      throw new TypeError(`Route ${route.method} "${route.path}" of "${plugin}" already exists`);
    }
    this.#entries.push({ plugin, route, segments });
  }

  /** Remove every route of `plugin`. */
  unregisterPlugin(plugin: string): void {
    this.#entries = this.#entries.filter((e) => e.plugin !== plugin);
  }

  /** The route of `plugin` answering `method path`, with its parameters. */
  match(
    plugin: string,
    method: string,
    path: string,
  ): { route: PluginRoute; params: Record<string, string> } | undefined {
    const parts = path.split("/").filter((p) => p !== "");
    for (const entry of this.#entries) {
      if (entry.plugin !== plugin || entry.route.method !== method) continue;
      if (entry.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const ok = entry.segments.every((s, i) => {
        if (s.startsWith(":")) return (params[s.slice(1)] = decodeSegment(parts[i]!)) !== "";
        return s === parts[i];
      });
      if (ok) return { route: entry.route, params };
    }
    return undefined;
  }

  /** Every route, as `METHOD plugin/path`. */
  list(): { plugin: string; method: string; path: string }[] {
    return this.#entries.map((e) => ({
      plugin: e.plugin,
      method: e.route.method,
      path: e.route.path,
    }));
  }
}

function decodeSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return "";
  }
}
