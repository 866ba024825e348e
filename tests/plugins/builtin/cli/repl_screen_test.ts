import assert from "node:assert/strict";
import { FrameRenderer, ReplScreen } from "../../../../plugins/builtin/cli/repl_screen.ts";

/** A terminal as text: stdout and stderr interleaved, "⟨prompt⟩" where the prompt was drawn. */
function fakeTerminal() {
  let text = "";
  let typed = "";
  const screen = new ReplScreen(
    { out: (t) => text += t, err: (t) => text += t },
    { typed: () => typed, show: () => text += `> ${typed}` },
  );
  return {
    screen,
    type(chars: string) {
      if (!screen.promptShown) screen.prompt();
      typed += chars;
      text += chars; // readline's echo
    },
    enter() {
      typed = "";
      text += "\n"; // readline moves to a new line
      screen.submitted();
    },
    get text() {
      return text.replaceAll("\r\x1b[K", "⌫");
    },
  };
}

Deno.test("ReplScreen puts what is typed during a streaming reply on its own line, output held until Enter", () => {
  const term = fakeTerminal();
  const render = new FrameRenderer(term.screen);
  render.render({ type: "delta", text: "word word " });
  term.type("/st");
  render.render({ type: "delta", text: "word " });
  term.type("op");
  term.enter();
  render.render({ type: "delta", text: "late " });
  render.render({ type: "reply", inputId: "i", text: "", status: "stopped" });
  term.screen.prompt();
  assert.equal(term.text, "word word \n> /stop\nword late \n[stopped]\n> ");
});

Deno.test("ReplScreen clears an empty prompt for output and ends the last line on close", () => {
  const term = fakeTerminal();
  const render = new FrameRenderer(term.screen);
  term.screen.prompt();
  render.render({ type: "message", text: "timer fired" });
  term.screen.prompt();
  term.screen.close();
  assert.equal(term.text, "> ⌫timer fired\n> \n");
});

Deno.test("ReplScreen without a terminal keeps replies, tool lines and stops on lines of their own", () => {
  let text = "";
  const screen = new ReplScreen({ out: (t) => text += t, err: (t) => text += `!${t}` });
  const render = new FrameRenderer(screen);
  render.render({ type: "delta", text: "Let me look" });
  render.render({ type: "tool", name: "doc_query", phase: "start" });
  render.render({ type: "delta", text: "Found it." });
  assert.equal(render.render({ type: "reply", inputId: "i", text: "", status: "ok" }), "reply");
  render.render({ type: "reply", inputId: "j", text: "Not streamed", status: "ok" });
  render.render({ type: "reply", inputId: "k", text: "No LLM source", status: "error" });
  screen.close();
  assert.equal(
    text,
    "Let me look\n![tool doc_query]\nFound it.\nNot streamed\n!No LLM source\n",
  );
});
