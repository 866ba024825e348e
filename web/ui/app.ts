/** The browser side of the first web page: a chat box over POST /api/v1/chat?wait=1. */

const log = document.getElementById("log") as HTMLDivElement;
const form = document.getElementById("chat") as HTMLFormElement;
const input = document.getElementById("text") as HTMLInputElement;

function add(kind: "you" | "agent" | "error", text: string): HTMLParagraphElement {
  const p = document.createElement("p");
  p.className = kind;
  p.textContent = text;
  log.append(p);
  p.scrollIntoView({ block: "end" });
  return p;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (text === "") return;
  input.value = "";
  add("you", text);
  const answer = add("agent", "…");
  try {
    const response = await fetch("/api/v1/chat?wait=1", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
    });
    const body = await response.json();
    if (response.ok) {
      answer.textContent = body.text;
      if (body.status !== "ok") answer.className = "error";
    } else {
      answer.textContent = body.error?.message ?? response.statusText;
      answer.className = "error";
    }
  } catch (error) {
    answer.textContent = `Cannot reach HomeAgent: ${error}`;
    answer.className = "error";
  }
});
