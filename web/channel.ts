/**
 * The `web` output channel: where the kernel sends what is meant for the owner at the web page.
 * A reply to an input (a timer set from the web chat, say) reaches every open page as the
 * kernel's own `output` event; a message the model sends (`output_send__web`) or a notice
 * becomes a `web_message` event. Pages that are closed read both later from the text log.
 */
import { type Agent, Cap, type Clock, type OutputChannel } from "../core/mod.ts";
import { EventHub } from "./event_hub.ts";

/** Name of the web page's output channel (the channel of inputs typed there). */
export const WEB_CHANNEL = "web";

/** Options of webOutputChannel. */
export interface WebOutputChannelOptions {
  hub: EventHub;
  clock: Pick<Clock, "now">;
}

/** The `web` channel over the SSE hub; register it with `agent.outputs.register`. */
export function webOutputChannel(options: WebOutputChannelOptions): OutputChannel {
  return {
    name: WEB_CHANNEL,
    plugin: "web",
    caps: Cap.text,
    description: "the owner's web page (every open tab shows it at once; closed tabs later)",
    help: "meta: {} (no routing metadata needed). Markdown is rendered.",
    handler(message) {
      // A reply went out as the kernel's `output` event already, with its turn.
      if (message.inputId !== undefined) return;
      options.hub.publish({
        type: "web_message",
        text: message.payload,
        kind: message.type,
        at: options.clock.now(),
      });
    },
  };
}

/** The page's live stream, open from before the plugins start until the daemon stops. */
export interface WebHub extends Disposable {
  hub: EventHub;
}

/**
 * Every kernel event into one EventHub, and the `web` channel over it. The daemon opens this
 * before the plugins load, so a timer that falls due at start finds the channel.
 */
export function openWebHub(agent: Pick<Agent, "events" | "outputs">, clock: Clock): WebHub {
  const hub = new EventHub({ clock });
  const unsubscribe = agent.events.subscribe("*", (event) => hub.publish(event));
  const unregister = agent.outputs.register(webOutputChannel({ hub, clock }));
  return {
    hub,
    [Symbol.dispose]() {
      unregister();
      unsubscribe();
      hub.close();
    },
  };
}
