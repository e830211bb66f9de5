-- Writes the options section of doc/acpchat.txt from the config schema (lua/acpchat/config.lua),
-- so the manual's defaults and descriptions cannot drift from the code.
--   nvim -l scripts/gen-doc.lua           rewrite doc/acpchat.txt in place
--   nvim -l scripts/gen-doc.lua --print   print the whole file as it should be (for the test)
-- The generated region is everything between the section header that carries *acpchat-options*
-- and the next line of "=" (the next section); the rest of the file is written by hand.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.rtp:prepend(root)
local config = require("acpchat.config")

local WIDTH = 78
local INDENT = string.rep(" ", 8)

--- `text` filled into lines of at most WIDTH columns; the first line starts with `first`,
--- the others with `indent`. `text` is a string (split on spaces) or a list of tokens, each
--- kept whole on one line ("default: X" must not be split from its value).
local function wrap(text, first, indent)
  local tokens = type(text) == "table" and text or vim.split(text, "%s+", { trimempty = true })
  local lines, cur = {}, first
  for _, word in ipairs(tokens) do
    local sep = (cur == "" or cur:match("%s$")) and "" or " "
    if cur:match("%S") and vim.fn.strdisplaywidth(cur .. sep .. word) > WIDTH then
      lines[#lines + 1] = cur
      cur, sep = indent, ""
    end
    cur = cur .. sep .. word
  end
  lines[#lines + 1] = cur
  return lines
end

local function right(tag)
  return string.rep(" ", WIDTH - #tag - 2) .. "*" .. tag .. "*"
end

--- A default as Lua source.
local function lua_value(node)
  if node.default_text and node.default ~= nil then
    return node.default_text
  elseif type(node.default) == "table" then
    return "{}"
  elseif type(node.default) == "string" then
    return string.format("%q", node.default)
  end
  return tostring(node.default)
end

--- The defaults block: setup() with every key at its default.
local function defaults_block(node, indent, out)
  for _, f in ipairs(node.fields) do
    local name, child = f[1], f[2]
    if child.kind == "record" then
      out[#out + 1] = indent .. name .. " = {"
      defaults_block(child, indent .. "  ", out)
      out[#out + 1] = indent .. "},"
    elseif child.default == nil and child.default_text then
      out[#out + 1] = string.format("%s%s = nil, -- %s", indent, name, child.default_text)
    else
      out[#out + 1] = string.format("%s%s = %s,", indent, name, lua_value(child))
    end
  end
end

--- What an entry's first line says after its path: the type, and the default (as tokens
--- for wrap(), the default whole).
local function summary(node)
  local tokens = vim.split(node.expect or "table", " ", { plain = true })
  local last = #tokens
  if node.kind == "record" then
    return tokens
  elseif node.required then
    tokens[last] = tokens[last] .. ","
    tokens[#tokens + 1] = "required"
  elseif node.default ~= nil or node.default_text then
    tokens[last] = tokens[last] .. ","
    tokens[#tokens + 1] = "default: " .. (node.default ~= nil and lua_value(node) or node.default_text)
  else
    tokens[last] = tokens[last] .. ","
    tokens[#tokens + 1] = "optional"
  end
  return tokens
end

--- One entry per key, depth first: a tag line for top-level keys, "path  type, default",
--- the description, and an example when the key has one.
local function entries(node, path, depth, out)
  local function entry(p, child)
    out[#out + 1] = ""
    local tag = child.tag
    if tag == nil and depth == 0 then
      tag = "acpchat-" .. p
    end
    if tag then
      out[#out + 1] = right(tag)
    end
    vim.list_extend(out, wrap(summary(child), p .. "  ", INDENT))
    if child.desc then
      vim.list_extend(out, wrap(child.desc, INDENT, INDENT))
    end
    if child.example then
      out[#out + 1] = INDENT .. "Example: >lua"
      for _, l in ipairs(child.example) do
        out[#out + 1] = INDENT .. "  " .. l
      end
      out[#out + 1] = "<"
    end
    -- The fields of a container's items, documented under a placeholder segment.
    if child.kind == "record" then
      entries(child, p, depth + 1, out)
    elseif child.kind == "map" and child.values.kind == "record" then
      entries(child.values, p .. ".{name}", depth + 1, out)
    elseif child.kind == "list" and child.items.kind == "record" then
      entries(child.items, p .. "[n]", depth + 1, out)
    end
  end
  for _, f in ipairs(node.fields) do
    entry(path == "" and f[1] or path .. "." .. f[1], f[2])
  end
end

local M = {}

--- The generated lines: from the blank line after the section header to the blank line
--- before the next separator.
function M.options_section()
  local out = { "" }
  vim.list_extend(
    out,
    wrap(
      "Every key is optional, and so is setup(). setup() checks every key: all mistakes are reported in one message, each with its dotted path and what was expected. The valid keys are used, and defaults replace the wrong ones. This section is generated from the schema in lua/acpchat/config.lua (scripts/gen-doc.lua).",
      "",
      ""
    )
  )
  out[#out + 1] = ""
  out[#out + 1] = "Defaults: >lua"
  out[#out + 1] = '    require("acpchat").setup({'
  defaults_block(config.schema, "      ", out)
  out[#out + 1] = "    })"
  out[#out + 1] = "<"
  entries(config.schema, "", 0, out)
  out[#out + 1] = ""
  return out
end

--- The help file with its options section regenerated.
function M.render(text)
  local lines = vim.split(text, "\n", { plain = true })
  local start, stop
  for i, l in ipairs(lines) do
    if not start and l:match("^%d+%. .*%*acpchat%-options%*$") then
      start = i
    elseif start and l:match("^=+$") then
      stop = i
      break
    end
  end
  assert(start and stop, "doc/acpchat.txt: no section header with *acpchat-options* followed by a separator")
  local out = vim.list_slice(lines, 1, start)
  vim.list_extend(out, M.options_section())
  vim.list_extend(out, vim.list_slice(lines, stop))
  return table.concat(out, "\n")
end

local file = root .. "/doc/acpchat.txt"
local text = table.concat(vim.fn.readfile(file, "b"), "\n")
local new = M.render(text)
if _G.arg and _G.arg[1] == "--print" then
  io.stdout:write(new)
elseif new ~= text then
  vim.fn.writefile(vim.split(new, "\n", { plain = true }), file, "b")
  io.stderr:write("doc/acpchat.txt: options section rewritten\n")
else
  io.stderr:write("doc/acpchat.txt: options section up to date\n")
end
