-- Configuration as a schema: every key has a type, a default and a description (the shape of
-- gitsigns' config.lua). setup() checks every key against it, reports all problems in one
-- message with dotted paths ("acpchat: setup(): agents.claude.command: expected non-empty
-- string, got number; layout.size: expected number > 0, got -1"), keeps what is valid and uses
-- the defaults for the rest. scripts/gen-doc.lua writes the options section of
-- doc/acpchat.txt from this same schema, and a test checks that they agree.
-- The schema's language (node kinds, the resolver) is config_schema.lua's.
local S = require("acpchat.config_schema")
local leaf, str, nonempty, bool, num, one_of, key, record, map, list =
  S.leaf, S.str, S.nonempty, S.bool, S.num, S.one_of, S.key, S.record, S.map, S.list

local M = {}

--- Agents we know how to start; used when their command is on PATH (or configured).
M.presets = {
  -- The adapter was renamed; the older name is still found.
  claude = {
    command = "claude-agent-acp",
    alternatives = { "claude-code-acp" },
    args = {},
    install = "npm install -g @zed-industries/claude-agent-acp",
  },
  gemini = { command = "gemini", args = { "--acp" }, install = "npm install -g @google/gemini-cli" },
  codex = { command = "codex-acp", args = {}, install = "npm install -g @zed-industries/codex-acp" },
  opencode = { command = "opencode", args = { "acp" }, install = "npm install -g opencode-ai" },
  goose = {
    command = "goose",
    args = { "acp" },
    install = "see https://block.github.io/goose/docs/getting-started/installation",
  },
}

-- An MCP server for the agent (ACP's McpServer): stdio (the agent starts `command`), or http /
-- sse (the agent connects to `url`; only agents whose mcpCapabilities allow it get those).
local mcp_server = record({
  { "name", nonempty({ required = true, desc = "The server's name, as the agent shows it." }) },
  { "type", one_of({ "stdio", "http", "sse" }, { default = "stdio", desc = "How the agent reaches it." }) },
  {
    "command",
    nonempty({ desc = "stdio: the program (a path, or found on PATH; made absolute when the chat starts)." }),
  },
  { "args", list(str({}), { expect = "list of strings", desc = "stdio: its arguments." }) },
  {
    "env",
    map(str({}), {
      atomic = true,
      expect = "table of name = string",
      desc = "stdio: its environment. `$NAME` or `${NAME}` in a value is taken from your environment when the chat starts ($$ is a $). Values are redacted like the agent's env.",
    }),
  },
  { "url", nonempty({ desc = "http, sse: the server's URL." }) },
  {
    "headers",
    map(str({}), {
      atomic = true,
      expect = "table of name = string",
      desc = "http, sse: HTTP headers; `$NAME` expanded and values redacted as for env.",
    }),
  },
}, {
  atomic = true,
  expect = "MCP server",
  -- The fields of the other transport are a mistake, not something to ignore silently.
  check = function(v)
    if v.type == "stdio" then
      if not v.command then
        return "a stdio server needs command"
      elseif v.url or v.headers then
        return "url and headers are for http and sse servers (set type)"
      end
    else
      if not v.url then
        return string.format("an %s server needs url", v.type)
      elseif v.command or v.args or v.env then
        return string.format("command, args and env are for stdio servers, not %s", v.type)
      end
    end
  end,
})

local function mcp_servers(o)
  return list(mcp_server, {
    default = o.default,
    expect = "list of MCP servers",
    tag = o.tag,
    desc = o.desc,
    example = o.example,
  })
end

-- The editor's tools offered to agents (src/editor-tools/tools.ts has their descriptions).
M.editor_tool_names = {
  "diagnostics",
  "definition",
  "references",
  "hover",
  "document_symbols",
  "workspace_symbols",
  "open_buffers",
  "selection",
  "quickfix",
  -- The file tools: the agent's reads see unsaved buffers, its writes go through your review.
  "read_file",
  "write_file",
  "edit_file",
  "list_files",
}

local editor_tools = record({
  {
    "enabled",
    bool({
      default = true,
      desc = "Offer the tools to every agent (per agent: |acpchat-agents.editor_tools|; per project: |acpchat-project|).",
    }),
  },
  {
    "tools",
    list(one_of(M.editor_tool_names, {}), {
      default = vim.deepcopy(M.editor_tool_names),
      default_text = 'require("acpchat.config").editor_tool_names',
      expect = "list of tool names",
      desc = "Which tools agents get: " .. table.concat(M.editor_tool_names, ", ") .. ".",
    }),
  },
  {
    "timeout_ms",
    num({
      min = 0,
      default = 5000,
      desc = "Longest wait for the editor's answer to one tool call (language servers included); the agent hears why when it runs out.",
    }),
  },
  {
    "max_results",
    num({
      min = 1,
      inclusive = true,
      integer = true,
      default = 200,
      desc = "The most lines one answer lists; the agent is told how many more there were.",
    }),
  },
}, {
  tag = "acpchat-editor_tools",
  desc = "The editor's own MCP server (|acpchat-editor-tools|): it lets agents ask what Neovim knows (diagnostics, definitions, references, hover, symbols, open files, the selection, the quickfix list) and read and write files as the editor sees them (|acpchat-editor-files|: writes go through your review), within the session's folders.",
})

local agent = record({
  { "command", nonempty({ required = true, desc = "The program to run, found on PATH (or a path)." }) },
  { "args", list(str({}), { expect = "list of strings", desc = "Its arguments." }) },
  {
    "env",
    map(str({}), {
      atomic = true,
      expect = "table of name = string",
      desc = "Extra environment variables. Their values are redacted from traces and |:AcpChatLog|.",
    }),
  },
  { "cwd", str({ desc = "The session's working directory (default: Neovim's current directory)." }) },
  { "mode", str({ desc = "The session mode to switch to when a session starts." }) },
  { "model", str({ desc = "The model to select when a session starts." }) },
  {
    "options",
    map(
      leaf("string or boolean", { "string", "boolean" }, function(v)
        return type(v) == "string" or type(v) == "boolean"
      end, {}),
      {
        atomic = true,
        expect = "table of id = string or boolean",
        desc = "Session config options to set when a session starts (id = value).",
      }
    ),
  },
  {
    "protocol",
    one_of({ "v1", "v2-draft" }, {
      tag = "acpchat-agents.protocol",
      desc = '"v2-draft": offer this agent the ACP v2 draft (|acpchat-acp-v2|) and speak it when the agent accepts it; an agent that answers with version 1 is spoken to in v1 as usual. Off (v1) by default: the draft may change.',
    }),
  },
  {
    "editor_tools",
    leaf('boolean or "stdio"', { "boolean", "string" }, function(v)
      return type(v) == "boolean" or v == "stdio"
    end, {
      tag = "acpchat-agents.editor_tools",
      desc = 'false: this agent does not get the editor\'s tools (|acpchat-editor_tools|), whatever the global setting. "stdio": it gets them through the bundled server process (dist/acpchat-mcp.cjs) even when it takes http MCP servers, which are otherwise served by the plugin itself on 127.0.0.1 (a proxy or sandbox in the agent that blocks the loopback address, say).',
    }),
  },
  {
    "editor_files",
    bool({
      tag = "acpchat-agents.editor_files",
      desc = "false: the agent keeps its own file tools. By default an agent whose switch is known (claude-agent-acp, gemini-cli, codex-acp) is steered to the editor's read_file, write_file and edit_file (|acpchat-editor-files|).",
    }),
  },
  {
    "mcp_servers",
    mcp_servers({
      tag = "acpchat-agents.mcp_servers",
      desc = "MCP servers for this agent's sessions, besides the global |acpchat-mcp_servers|; one with the same name replaces the global one.",
    }),
  },
}, { atomic = true })

local rule = record({
  { "action", one_of({ "allow", "reject" }, { required = true, desc = "What to answer." }) },
  { "kind", str({ desc = 'The tool kind (read, edit, execute, ...), "*" for any.' }) },
  { "tool", str({ desc = "The tool's name or title." }) },
  { "path", str({ desc = "A glob relative to the cwd (*, **, ?); every location of the call must match." }) },
}, { atomic = true })

M.schema = record({
  {
    "agents",
    map(agent, {
      default = {},
      expect = "table of name = agent",
      desc = "Agents that |:AcpChat| {name} starts. Presets for claude, gemini, codex, opencode and goose are added when their command is on PATH; an agent of the same name here replaces its preset. An agent with any mistake is left out (its preset, if any, is used).",
      example = {
        'agents = { claude = { command = "claude-agent-acp",',
        '                      mode = "acceptEdits", model = "opus",',
        "                      options = { thinking = true } } }",
      },
    }),
  },
  {
    "mcp_servers",
    mcp_servers({
      default = {},
      tag = "acpchat-mcp_servers",
      desc = "MCP servers passed to every agent on session/new, load and resume (|acpchat-mcp|). stdio servers always; http and sse ones only to agents that accept them (the others get a note in the transcript). One mistake drops the whole list.",
      example = {
        "mcp_servers = {",
        '  { name = "fs", command = "mcp-fs", args = { "." } },',
        '  { name = "gh", command = "github-mcp",',
        '    env = { GITHUB_TOKEN = "$GITHUB_TOKEN" } },',
        '  { name = "docs", type = "http", url = "https://x.dev/mcp",',
        '    headers = { Authorization = "Bearer ${DOCS_TOKEN}" } },',
        "}",
      },
    }),
  },
  { "editor_tools", editor_tools },
  {
    "default_agent",
    str({ desc = "The agent |:AcpChat| starts when none is named.", default_text = "the first agent found, by name" }),
  },
  {
    "root_markers",
    list(str({}), {
      default = { ".git", ".hg", ".jj" },
      expect = "list of file or folder names",
      desc = "A chat's folder (the agent's working directory, where it may read and write) is the nearest folder above the current directory holding one of these (|vim.fs.root()|), else the current directory. Neovim started in src/ then still gives the agent the whole project. {} : always the current directory; an agent's own `cwd` wins.",
    }),
  },
  {
    "layout",
    record({
      {
        "position",
        one_of({ "right", "left", "top", "bottom", "float" }, { default = "right", desc = "Where the chat opens." }),
      },
      {
        "size",
        num({
          min = 0,
          default = 0.4,
          desc = "Columns (or rows) of the chat, or a fraction of the editor when below 1.",
        }),
      },
      {
        "prompt_height",
        num({ min = 1, inclusive = true, integer = true, default = 5, desc = "Lines of the prompt window." }),
      },
    }, { desc = "The chat's windows." }),
  },
  {
    "keymaps",
    record({
      { "send", key("<CR>", "Normal mode, in the prompt: send it.") },
      { "send_insert", key("<C-s>", "Insert mode, in the prompt: send it.") },
      { "cancel", key("<C-c>", "Prompt and transcript: cancel the turn.") },
      {
        "answer",
        key(
          "<M-a>",
          "Prompt and transcript (Normal and Insert mode): open the oldest question that waits for your answer, as :AcpChatAnswer (|acpchat-questions|)."
        ),
      },
      { "focus_prompt", key("i", "Transcript: go to the prompt, in Insert mode.") },
      {
        "history_prev",
        key(
          "<M-p>",
          "Prompt (Normal and Insert mode): the previous prompt sent from this folder's chats (this Neovim's and earlier ones)."
        ),
      },
      {
        "history_next",
        key(
          "<M-n>",
          "Prompt (Normal and Insert mode): the next prompt in that history; after the newest, the text you were typing."
        ),
      },
      { "hide", key("q", "Transcript: hide the chat.") },
      { "next_turn", key("]]", "Transcript: next turn.") },
      { "prev_turn", key("[[", "Transcript: previous turn.") },
      { "open_location", key("gf", "Transcript: open the tool call's location.") },
      { "show_diff", key("gd", "Transcript: show the tool call's diff.") },
      { "show_terminal", key("gt", "Transcript: show the tool call's terminal output.") },
      {
        "cancel_tool",
        key(
          "gC",
          "Transcript: on a tool call, cancel it alone (ACP v2 `tool_call/cancel`), or the command it left running (`terminal/cancel`); only where the agent allows it, which the block says (|acpchat-work-cancel|)."
        ),
      },
      {
        "expand_output",
        key(
          "za",
          "Transcript: on a tool call or a context compaction, show its folded output whole (again: fold it); elsewhere Vim's za."
        ),
      },
      {
        "open_subagent",
        key("gs", "Transcript: on a subagent's block, open its session in a view of its own (|acpchat-subagents|)."),
      },
      {
        "open_media",
        key(
          "gx",
          "Transcript: on an image or audio line, open it (|vim.ui.open()| on a private temp file); elsewhere opens the URL under the cursor."
        ),
      },
      {
        "save_media",
        key(
          "gS",
          "Transcript: on an image or audio line, save it to a file (asks for the path; asks before overwriting)."
        ),
      },
    }, { desc = "The chat's keys (|acpchat-keys|); false leaves one unmapped." }),
  },
  {
    "completion",
    record({
      {
        "lsp",
        bool({
          default = true,
          desc = "Serve the prompt's completion from a language server inside Neovim, named \"acpchat\", attached to each prompt buffer: nvim-cmp, blink.cmp, mini.completion and `vim.lsp.completion` offer it as they offer any server's items. Your |LspAttach| autocmds run for it.",
        }),
      },
      {
        "menu",
        one_of({ "auto", "builtin", "none" }, {
          default = "auto",
          desc = 'Whether the menu opens by itself as you type `/` or `@`. "auto": Neovim\'s built-in menu (`vim.lsp.completion` on 0.11+, the omnifunc on 0.10) unless nvim-cmp, blink.cmp, mini.completion or coq_nvim is loaded (they open theirs). "builtin": always the built-in one. "none": never (your engine, or |i_CTRL-X_CTRL-O|).',
        }),
      },
    }, { desc = "`/` and `@` completion in the prompt (|acpchat-prompt-completion|)." }),
  },
  {
    "write",
    one_of({ "review", "buffer", "save" }, {
      default = "review",
      desc = 'How the agent\'s writes reach your files. "review": every write opens in review first (|acpchat-review|), also after you answered its permission question "Allow" or "Allow always" (those show the diff\'s line counts, not the diff); the one exception is a write you already accepted hunk by hunk in that question\'s "Show the diff first", which is not shown twice. What you accept is saved before the agent is answered when the buffer held no unsaved edits of yours. "buffer": into the buffer as one undoable change; you save. "save": into the buffer, and written. With "buffer" and "save", "Allow" (or no question at all) is the approval. A buffer with your unsaved edits is always reviewed, in every mode and whatever the permission answer (Allow, Allow always, a remembered rule); only a "Show the diff first" made against those very edits counts as that review. A change left unsaved is said in the transcript and, in words, to the agent.',
    }),
  },
  {
    "registry_url",
    str({
      default_text = "the ACP project's registry",
      desc = "Where |:AcpChatInstall| reads the ACP agent registry: an https URL, or a file path (offline use). The last copy read is cached; when reading fails, the cache is used and the chat says why.",
    }),
  },
  {
    "checkpoints",
    record({
      {
        "enabled",
        bool({
          default = true,
          desc = "Snapshot the session's folder before each prompt, after each tool call and at the end of each turn, into a git repository of the plugin's own (the user's `.git` is never touched; needs git 2.25 or later), so every turn's changes are listed, reviewable and reversible (|acpchat-checkpoints|).",
        }),
      },
      {
        "max_files",
        num({
          min = 1,
          inclusive = true,
          integer = true,
          default = 50000,
          desc = "A folder with more files than this (not counting ignored ones; counting those of repositories inside it) gets no checkpoints (a home directory, say), as does one that grows past it (or a snapshot that finds more changed files than this); the chat says so.",
        }),
      },
      {
        "max_file_bytes",
        num({
          min = 0,
          integer = true,
          default = 5 * 1024 * 1024,
          default_text = "5 * 1024 * 1024",
          desc = "Files larger than this are not stored: a change to them is listed, but they cannot be put back.",
        }),
      },
      {
        "max_age_days",
        num({ min = 0, default = 14, desc = "Checkpoints of chats older than this are removed when a chat starts." }),
      },
      {
        "max_size_mb",
        num({
          min = 0,
          default = 2048,
          desc = "When a project's checkpoints take more than this on disk, the oldest chats' are removed.",
        }),
      },
    }, { tag = "acpchat-checkpoints-options", desc = "Turn checkpoints (|acpchat-checkpoints|)." }),
  },
  {
    "notify",
    record({
      {
        "enabled",
        bool({
          default = false,
          desc = "Tell you when a chat needs you (a question, a turn ended, an error) while Neovim is not focused or the chat is not shown in this tab (|acpchat-attention|). The `User AcpChatAttention` autocommand fires either way.",
        }),
      },
      {
        "method",
        one_of({ "terminal", "command" }, {
          default = "terminal",
          desc = '"terminal": an OSC 777 and an OSC 9 notification through the terminal (kitty, WezTerm, foot, iTerm2, Ghostty, Windows Terminal...; others ignore them). "command": run `command` with the title and the message as its last two arguments.',
        }),
      },
      {
        "command",
        list(str({}), {
          default = { "notify-send", "--app-name=acp-chat.nvim" },
          expect = "list of strings",
          desc = 'The program and its first arguments, for method "command" (run in the background; never through a shell).',
        }),
      },
      {
        "kinds",
        list(one_of({ "question", "turn_end", "error" }, {}), {
          default = { "question", "turn_end", "error" },
          expect = "list of kinds",
          desc = "Which of the attention kinds notify.",
        }),
      },
    }, { tag = "acpchat-notify-options", desc = "Notifications when a chat needs you (|acpchat-attention|)." }),
  },
  {
    "follow",
    bool({
      default = false,
      desc = "Show the location of a running tool call in the last editor window as the agent works (the focus stays).",
    }),
  },
  {
    "permissions",
    record({
      {
        "rules",
        list(rule, {
          default = {},
          expect = "list of rules",
          tag = "acpchat-permissions-rules",
          desc = "Permission questions answered without asking; the first matching rule wins. A rule has an action and any of kind, tool and path. One mistake drops the whole list (you are asked every time), so a rule meant to reject is never lost.",
          example = {
            "permissions = { rules = {",
            '  { kind = "read", path = "**", action = "allow" },',
            "} }",
          },
        }),
      },
    }, { tag = false, desc = "What the client answers for you (|acpchat-permissions|)." }),
  },
  {
    "timeouts",
    record({
      {
        "initialize_ms",
        num({ min = 0, default = 60000, desc = "Longest wait for the agent to start (initialize)." }),
      },
      {
        "new_session_ms",
        num({
          min = 0,
          default = 120000,
          desc = "Longest wait for a new, resumed or loaded session (generous: some agents sign in here).",
        }),
      },
      {
        "cancel_ms",
        num({
          min = 0,
          default = 10000,
          desc = "How long an agent may ignore a cancel before the client ends the turn itself.",
        }),
      },
      {
        "request_ms",
        num({
          min = 0,
          default = 30000,
          desc = "Longest wait for any other request to the agent (setting a mode, listing sessions, ...). A prompt has no timeout: its turn runs until it ends or you cancel it.",
        }),
      },
    }, { desc = "How long the client waits for the agent, in milliseconds." }),
  },
  {
    "terminal",
    record({
      {
        "output_limit_bytes",
        num({
          min = 0,
          default = 4 * 1024 * 1024,
          default_text = "4 * 1024 * 1024",
          desc = "The most output kept for each terminal the agent runs; older output is dropped first. An agent may ask for less (outputByteLimit), never more.",
        }),
      },
    }, { desc = "Terminals the agent runs (terminal/create)." }),
  },
  {
    "media",
    record({
      {
        "max_bytes",
        num({
          min = 0,
          default = 5 * 1024 * 1024,
          default_text = "5 * 1024 * 1024",
          desc = "The largest image or audio file attached to a prompt (|acpchat-images|); a larger one is refused with a message, and the prompt keeps its text.",
        }),
      },
    }, { desc = "Images and audio in prompts (|acpchat-images|)." }),
  },
  {
    "fs",
    record({
      {
        "max_read_bytes",
        num({
          min = 0,
          default = 10 * 1024 * 1024,
          default_text = "10 * 1024 * 1024",
          desc = "The largest file read from disk for the agent.",
        }),
      },
      {
        "extra_roots",
        list(str({}), {
          default = {},
          expect = "list of strings",
          desc = "More directories the agent may read, write and run terminals in, besides the session's cwd.",
        }),
      },
    }, { desc = "The agent's file access (|acpchat-workspace|)." }),
  },
  {
    "save_dir",
    str({
      desc = "Where |:AcpChatSave| writes when given no path.",
      default_text = 'stdpath("data") .. "/acpchat/transcripts"',
    }),
  },
  {
    "log_dir",
    str({
      desc = "Where the JSON-RPC traces go, one file per chat (|:AcpChatLog| shows them).",
      default_text = 'stdpath("log") .. "/acpchat"',
    }),
  },
  {
    "frame_ms",
    num({
      min = 0,
      inclusive = true,
      default = 16,
      desc = "Longest wait before streamed text is drawn (one batch per frame).",
    }),
  },
  {
    "unstable",
    bool({
      default = false,
      desc = "Advertise and handle what the ACP SDK's unstable v1 schema defines for clients (|acpchat-unstable-additions|): plans by id, subagents (child sessions) and their messages, |:AcpChatFork|, renaming sessions in |:AcpChatSessions|. These may change with any agent or SDK release. Off: none of it is advertised, and such updates show as unknown notes.",
    }),
  },
})

--- Check user options against the schema. Returns the options to use (every valid key of
--- `opts`, defaults for the rest) and the list of problems ("path: what"), empty when none.
function M.resolve(opts)
  local problems = {}
  local options = S.resolve(M.schema, opts, "", problems)
  if options == nil then
    options = S.default_of(M.schema)
  end
  -- A wrong root has an empty path: "setup(): expected table, got string".
  for i, p in ipairs(problems) do
    problems[i] = p:gsub("^: ", "")
  end
  return options, problems
end

--- All problems as the one line setup() reports.
function M.format(problems)
  return "acpchat: setup(): " .. table.concat(problems, "; ")
end

--- Validate user options; returns the message reporting every problem, or nil.
function M.validate(opts)
  local _, problems = M.resolve(opts)
  if #problems > 0 then
    return M.format(problems)
  end
end

--- What a project's `.acpchat.lua` may set (|acpchat-project|): its MCP servers and editor
--- tools, for every agent and per agent.
M.project_schema = record({
  { "mcp_servers", mcp_servers({ tag = false, desc = "Added to the global ones (the same name replaces)." }) },
  {
    "editor_tools",
    record({
      { "enabled", bool({ desc = "Offer the editor's tools in this project." }) },
      { "tools", list(one_of(M.editor_tool_names, {}), { expect = "list of tool names", desc = "Which tools." }) },
    }, { tag = false, desc = "Over the global |acpchat-editor_tools|." }),
  },
  {
    "agents",
    map(
      record({
        { "mcp_servers", mcp_servers({ tag = false, desc = "Added to the agent's." }) },
        { "editor_tools", bool({ desc = "false: not for this agent here." }) },
      }, { atomic = true }),
      { expect = "table of name = { mcp_servers, editor_tools }", desc = "Per agent." }
    ),
  },
}, { desc = "A project's .acpchat.lua." })

--- Check a project's settings; returns what to use and the problems (dotted paths).
function M.resolve_project(t)
  local problems = {}
  local out = S.resolve(M.project_schema, t, ".acpchat.lua", problems)
  return out or {}, problems
end

M.defaults = S.default_of(M.schema)
M.options = vim.deepcopy(M.defaults)
--- The problems found by the last set(), for :checkhealth.
M.problems = {}

--- Apply user options: every valid key is used, defaults fill in the rest (each call starts
--- from the defaults). Returns true, or false and the message listing every problem.
function M.set(opts)
  local options, problems = M.resolve(opts)
  M.options, M.problems = options, problems
  if #problems > 0 then
    return false, M.format(problems)
  end
  return true
end

--- All agents: configured ones, plus presets whose command is on PATH.
function M.agents()
  local out = {}
  for name, p in pairs(M.presets) do
    for _, cmd in ipairs(vim.list_extend({ p.command }, p.alternatives or {})) do
      if vim.fn.executable(cmd) == 1 then
        out[name] = { command = cmd, args = p.args }
        break
      end
    end
  end
  -- Agents installed with :AcpChatInstall (before the user's own, which replace them).
  for _, a in ipairs(M.installed_agents()) do
    out[a.id] = { command = a.command, args = a.args, env = next(a.env or {}) and a.env or nil }
  end
  for name, a in pairs(M.options.agents) do
    out[name] = a
  end
  return out
end

--- Where :AcpChatInstall puts agents (stdpath("data")/acpchat/agents/<id>/).
function M.agents_dir()
  return vim.fn.stdpath("data") .. "/acpchat/agents"
end

--- The agents installed with :AcpChatInstall (each one's current.json), read at once.
function M.installed_agents()
  local out = {}
  local dir = M.agents_dir()
  for name, kind in vim.fs.dir(dir) do
    if kind == "directory" then
      local f = io.open(dir .. "/" .. name .. "/current.json", "r")
      if f then
        local ok, a = pcall(vim.json.decode, f:read("*a"))
        f:close()
        if ok and type(a) == "table" and type(a.id) == "string" and type(a.command) == "string" then
          out[#out + 1] = a
        end
      end
    end
  end
  table.sort(out, function(x, y)
    return x.id < y.id
  end)
  return out
end

function M.agent_names()
  local names = vim.tbl_keys(M.agents())
  table.sort(names)
  return names
end

--- The agent to use when none is named: default_agent, else the only/first available.
function M.default_agent()
  if M.options.default_agent then
    return M.options.default_agent
  end
  return M.agent_names()[1]
end

function M.log_dir()
  return M.options.log_dir and vim.fs.normalize(M.options.log_dir) or (vim.fn.stdpath("log") .. "/acpchat")
end

--- Where :AcpChatSave writes when given no path.
function M.save_dir()
  return M.options.save_dir and vim.fs.normalize(M.options.save_dir)
    or (vim.fn.stdpath("data") .. "/acpchat/transcripts")
end

--- What to tell a user who has no agent at all.
function M.install_hint()
  local lines = { "acpchat: no agent found. Install one, or configure `agents` in require('acpchat').setup():" }
  local names = vim.tbl_keys(M.presets)
  table.sort(names)
  for _, name in ipairs(names) do
    local p = M.presets[name]
    lines[#lines + 1] = string.format("  %s: %s (needs `%s` on PATH)", name, p.install, p.command)
  end
  return table.concat(lines, "\n")
end

return M
