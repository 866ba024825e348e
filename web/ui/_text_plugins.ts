/**
 * The words of the plugin list and of installing a plugin, English then Chinese, with a line on
 * what each built-in is for (tests/web/ui_text_test.ts checks both).
 */
export const PLUGIN_TEXT = {
  actions: ["Actions", "操作"],
  permissions: ["Permissions", "权限"],
  permEnv: ["Environment variables", "环境变量"],
  permRead: ["Reads (inside its folder)", "读取（仅其目录内）"],
  permWrite: ["Writes (inside its folder)", "写入（仅其目录内）"],
  permNet: ["Network hosts", "网络主机"],
  permRun: ["Programs it starts", "启动的程序"],
  permCapabilities: ["Capabilities", "能力"],
  permNone: [
    "No permissions beyond its own folder and its data folder.",
    "除自身目录和数据目录外没有其他权限。",
  ],
  permHomeagentEnv: [
    "It asks for HomeAgent's own variables ({names}): API keys and the home.",
    "它请求 HomeAgent 自己的环境变量（{names}）：包括 API 密钥和主目录。",
  ],
  permNative: [
    "It runs outside the sandbox ({why}); refused unless core.plugins.allow_native is on.",
    "它在沙箱之外运行（{why}）；除非开启 core.plugins.allow_native，否则会被拒绝。",
  ],
  runs_subprocess: [
    "Runs as its own process, with exactly the permissions listed.",
    "作为独立进程运行，只有下列权限。",
  ],
  runs_lua: [
    "Runs in HomeAgent's Lua sandbox: no files, programs or environment; HTTP to its hosts only.",
    "在 HomeAgent 的 Lua 沙箱中运行：不能访问文件、程序或环境变量；只能访问其声明的主机。",
  ],
  runs_skill: [
    "A skill: instructions the model reads; no code runs.",
    "技能：模型阅读的说明；不运行任何代码。",
  ],
  builtinRuns: [
    "Part of HomeAgent: it runs inside the daemon and cannot be removed.",
    "HomeAgent 自带：在守护进程内运行，无法移除。",
  ],
  reviewTitle: ["Install “{name}” {version}?", "安装“{name}” {version}？"],
  install: ["Install", "安装"],
  uninstall: ["Uninstall", "卸载"],
  uninstallConfirm: [
    "Uninstall “{name}”? Its folder and its data are deleted.",
    "卸载“{name}”？其目录和数据都会被删除。",
  ],
  restartedTimes: ["restarted {n}× after a crash", "崩溃后已重启 {n} 次"],
  lastCrash: ["last crash {at}: {reason}", "最近一次崩溃 {at}：{reason}"],
  about_skills: [
    "Skills: finds and loads SKILL.md instructions.",
    "技能：查找并加载 SKILL.md 说明。",
  ],
  about_pluginmgr: ["Lets the agent list and manage plugins.", "让助手列出和管理插件。"],
  about_mcp: ["Connects MCP servers and offers their tools.", "连接 MCP 服务器并提供其工具。"],
  about_cli: [
    "The terminal: homeagent chat, status and the other commands.",
    "终端：homeagent chat、status 等命令。",
  ],
  about_cfgmgr: ["Lets the agent read and change settings.", "让助手读取和修改设置。"],
  about_agentcli: ["Terminals the agent opens and types in.", "助手打开并输入的终端。"],
  about_healthcheck: ["Checks HomeAgent's health and speed.", "检查 HomeAgent 的健康状况和速度。"],
  about_files: ["Reads and writes files in the agent's folder.", "在助手的文件夹中读写文件。"],
  about_cmd: ["Runs commands in the agent's folder.", "在助手的文件夹中运行命令。"],
  about_timer: ["Timers and reminders.", "定时器和提醒。"],
  about_changes: [
    "Records the agent's file changes, with rollback.",
    "记录助手的文件改动，可回滚。",
  ],
  about_clawhubadapter: ["Finds and installs skills from ClawHub.", "从 ClawHub 查找并安装技能。"],
} as const satisfies Record<string, readonly [string, string]>;
