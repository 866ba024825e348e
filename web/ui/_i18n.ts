/** UI text in English and Chinese; the language follows navigator.language until toggled. */
import { signal } from "@preact/signals";

const EN = {
  title: "HomeAgent",
  chat: "Chat",
  memory: "Memory",
  knowledge: "Knowledge",
  settings: "Settings",
  plugins: "Plugins",
  llm: "LLM sources",
  agents: "Residents",
  send: "Send",
  stop: "Stop",
  placeholder: "Say something…",
  loginTitle: "Log in",
  loginHint: "Paste the access token that `homeagent serve` printed.",
  token: "Access token",
  login: "Log in",
  badToken: "Wrong token",
  tooMany: "Too many wrong tokens were tried from this address, so wrong tokens are refused " +
    "for {minutes} more. The right token still works: paste it, or open the login link that " +
    "`homeagent serve` printed.",
  loginLinkWrong: "The token in that login link is not this daemon's token. Paste the token, " +
    "or open the link that `homeagent serve` printed most recently.",
  loginCrossSite: "That login link was opened from another website, so it was not used (a web " +
    "page must not be able to try tokens for you). Open the link directly, or paste the token.",
  minutes: "{n} minutes",
  minute: "1 minute",
  seconds: "{n} seconds",
  idle: "idle",
  busy: "working",
  reasoning: "Reasoning",
  tools: "Tool calls",
  phase: "Phase",
  stopped: "Stopped",
  error: "Error",
  graph: "Graph",
  documents: "Documents",
  context: "Context window",
  search: "Search",
  sentences: "Facts and sentences",
  edit: "Edit",
  save: "Save",
  cancel: "Cancel",
  delete: "Delete",
  retire: "Retire entity",
  predicate: "Predicate",
  target: "Target",
  score: "Score",
  query: "Query",
  noData: "Nothing yet.",
  create: "Create",
  name: "Name",
  content: "Content",
  filter: "Filter keys",
  saved: "Saved",
  reset: "Reset to default",
  enable: "Enable",
  disable: "Disable",
  reload: "Reload",
  upload: "Upload .hmap",
  installConfirm: "Install this plugin with these permissions?",
  skills: "Skills",
  skillSource: "Source",
  installSkill: "Install",
  installSkillConfirm: "Install these skills?",
  noSkills: "No skills in <home>/skills yet.",
  remove: "Remove",
  state: "State",
  calls: "Calls",
  failures: "Failures",
  lastError: "Last error",
  usage: "Token usage",
  day: "Day",
  prompt: "Prompt",
  completion: "Completion",
  notAvailable: "Not available",
  resync: "Reconnected; some live events were missed.",
  clickNode: "Click an entity to see its facts.",
  refresh: "Refresh",
  pluginTools: "Tools",
  terminals: "Terminals",
  noTerminals: "No terminals are open.",
  changesets: "File changes",
  noChanges: "The agent has changed no files.",
  rollback: "Roll back",
  rolledBack: "Rolled back {id}; {undo} undoes the rollback.",
  rollbackOf: "rollback of",
  rolledBackBy: "rolled back by",
  commands: "Commands",
  noCommands: "No commands have run.",
  timers: "Timers",
  noTimers: "No timers are pending.",
  every: "every {s} s",
  vectorSpace: "Vector space",
  reembedding: "re-embedding memories: {done} of {total}",
  wordsOnly: "Recall matches words only. For recall by meaning, install a sentence model:",
};

/** The text keys. */
export type TextKey = keyof typeof EN;

const ZH: Record<TextKey, string> = {
  title: "HomeAgent",
  chat: "对话",
  memory: "记忆",
  knowledge: "知识库",
  settings: "设置",
  plugins: "插件",
  llm: "模型来源",
  agents: "常驻助手",
  send: "发送",
  stop: "停止",
  placeholder: "说点什么…",
  loginTitle: "登录",
  loginHint: "粘贴 `homeagent serve` 打印的访问令牌。",
  token: "访问令牌",
  login: "登录",
  badToken: "令牌错误",
  tooMany:
    "此地址尝试了太多错误的令牌，接下来 {minutes}内错误的令牌都会被拒绝。正确的令牌仍然有效：" +
    "请粘贴它，或打开 `homeagent serve` 打印的登录链接。",
  loginLinkWrong: "该登录链接中的令牌不是本守护进程的令牌。请粘贴令牌，或打开 `homeagent serve` " +
    "最近一次打印的链接。",
  loginCrossSite:
    "该登录链接是从其他网站打开的，因此未被使用（网页不能替你尝试令牌）。请直接打开该链接，或粘贴令牌。",
  minutes: "{n} 分钟",
  minute: "1 分钟",
  seconds: "{n} 秒",
  idle: "空闲",
  busy: "工作中",
  reasoning: "推理过程",
  tools: "工具调用",
  phase: "阶段",
  stopped: "已停止",
  error: "错误",
  graph: "知识图谱",
  documents: "文档",
  context: "上下文窗口",
  search: "搜索",
  sentences: "事实与原句",
  edit: "编辑",
  save: "保存",
  cancel: "取消",
  delete: "删除",
  retire: "停用实体",
  predicate: "关系",
  target: "目标",
  score: "相关度",
  query: "查询",
  noData: "暂无内容。",
  create: "新建",
  name: "名称",
  content: "内容",
  filter: "筛选键名",
  saved: "已保存",
  reset: "恢复默认",
  enable: "启用",
  disable: "停用",
  reload: "重新加载",
  upload: "上传 .hmap",
  installConfirm: "以这些权限安装此插件？",
  skills: "技能",
  skillSource: "来源",
  installSkill: "安装",
  installSkillConfirm: "安装这些技能？",
  noSkills: "<home>/skills 中还没有技能。",
  remove: "移除",
  state: "状态",
  calls: "调用",
  failures: "失败",
  lastError: "最近错误",
  usage: "Token 用量",
  day: "日期",
  prompt: "输入",
  completion: "输出",
  notAvailable: "暂不可用",
  resync: "已重新连接，部分实时事件已丢失。",
  clickNode: "点击实体查看它的事实。",
  refresh: "刷新",
  pluginTools: "工具",
  terminals: "终端",
  noTerminals: "没有打开的终端。",
  changesets: "文件改动",
  noChanges: "助手还没有改动任何文件。",
  rollback: "回滚",
  rolledBack: "已回滚 {id}；{undo} 可撤销这次回滚。",
  rollbackOf: "回滚自",
  rolledBackBy: "已被回滚：",
  commands: "命令",
  noCommands: "还没有运行过命令。",
  timers: "定时器",
  noTimers: "没有待触发的定时器。",
  every: "每 {s} 秒",
  vectorSpace: "向量空间",
  reembedding: "正在重新向量化记忆：{done} / {total}",
  wordsOnly: "目前只按字词回忆。安装语义模型即可按含义回忆：",
};

/** "en" or "zh". */
export const lang = signal<"en" | "zh">(
  (localStorage.getItem("homeagent.lang") ?? navigator.language).toLowerCase().startsWith("zh")
    ? "zh"
    : "en",
);

/** Switch language and remember the choice. */
export function toggleLang(): void {
  lang.value = lang.value === "zh" ? "en" : "zh";
  localStorage.setItem("homeagent.lang", lang.value);
  document.documentElement.lang = lang.value === "zh" ? "zh-CN" : "en";
}

/** The text of `key` in the current language, with each `{name}` replaced from `vars`. */
export function t(key: TextKey, vars: Record<string, string | number> = {}): string {
  const text = (lang.value === "zh" ? ZH : EN)[key];
  return text.replace(/\{(\w+)\}/g, (all, name: string) => String(vars[name] ?? all));
}

/** A wait in words: "10 minutes", "1 minute", "45 seconds" (in the current language). */
export function waitText(seconds: number): string {
  if (seconds < 60) return t("seconds", { n: seconds });
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? t("minute") : t("minutes", { n: minutes });
}
