/** The web app over a real Agent and a fake LLM, served by a real Deno.serve on 127.0.0.1. */
import { agentChatPort, agentEventsPort, createApp } from "../../web/mod.ts";
import { systemClock } from "../../adapters/mod.ts";
import { type FakeLLMServer, startFakeOpenAI } from "../fixtures/fake_llm.ts";
import { createTestKernel, type TestKernel } from "../fakes/kernel.ts";
import { TOKEN } from "./_deps.ts";
import type { MediaStore } from "../../core/mod.ts";

/** A served agent; dispose it to stop the server, the kernel and the fake LLM. */
export interface ServedAgent extends AsyncDisposable {
  llm: FakeLLMServer;
  kernel: TestKernel;
  /** `http://127.0.0.1:PORT` */
  base: string;
}

/** Serve an Agent whose one LLM source is a fake OpenAI server (none with `noSource`). */
export function serveAgent(
  options: { noSource?: boolean; media?: MediaStore; vision?: boolean } = {},
): ServedAgent {
  const llm = startFakeOpenAI();
  const kernel = createTestKernel({
    sources: options.noSource ? [] : [{ name: "fake", server: llm, vision: options.vision }],
    media: options.media,
  });
  kernel.agent.tools.register({
    name: "remember_this",
    description: "A tool the OpenAI endpoint must not offer",
    parameters: { type: "object", properties: {} },
    handler: () => "ok",
  }, "test");
  const app = createApp({
    token: TOKEN,
    clock: systemClock,
    status: () => kernel.agent.status(),
    chat: agentChatPort(kernel.agent),
    events: agentEventsPort(kernel.agent),
    media: options.media,
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request, info) => app.fetch(request, { remoteAddr: info.remoteAddr }),
  );
  return {
    llm,
    kernel,
    base: `http://127.0.0.1:${server.addr.port}`,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await kernel[Symbol.asyncDispose]();
      await llm.close();
    },
  };
}
